package main

// goref config: a KubeSchedulerConfiguration as kube-scheduler v1.23.6 reads it, for
// kscore_fast/config's differential tests (tests/config/test_goref_config.py).
//
//	goref config [--config FILE]
//
// The steps are kube-scheduler's own (cmd/kube-scheduler/app: Setup, options.ApplyTo,
// loadConfig; pkg/scheduler: New, profile.NewMap): decode the file with the scheduler
// scheme's strict UniversalDecoder (defaulting included), ValidateKubeSchedulerConfiguration,
// then build every profile's framework over the in-tree registry. Without --config the
// configuration is latest.Default(), what kube-scheduler runs without a file.
//
// Output on stdout, one JSON document:
//
//	{"apiVersion", "parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds",
//	 "podMaxBackoffSeconds",
//	 "profiles": [{"schedulerName",
//	               "plugins": {"queueSort": [{"name"}], ..., "score": [{"name", "weight"}]},
//	               "pluginConfig": [{"name", "args"}]}],
//	 "yaml": "..."}
//
// "plugins" is the framework's ListPlugins() (MultiPoint expanded, weights as
// getScoreWeights set them); "pluginConfig" the args the framework was built with (the
// captured profile: plugins the profile uses, by name), in v1beta3 JSON without apiVersion
// and kind; "yaml" what kube-scheduler --write-config-to writes (encodeConfig of the
// configuration with the completed profiles). A configuration kube-scheduler refuses gives
// {"stage": "load"|"validate"|"profiles", "error": "<Go's message>"} and exit code 2.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	configv1beta2 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1beta2"
	configv1beta3 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1beta3"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	internalcache "k8s.io/kubernetes/pkg/scheduler/internal/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/internal/queue"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

type configPluginJSON struct {
	Name   string `json:"name"`
	Weight *int32 `json:"weight,omitempty"`
}

type configProfileJSON struct {
	SchedulerName string                        `json:"schedulerName"`
	Plugins       map[string][]configPluginJSON `json:"plugins"`
	PluginConfig  []configArgsJSON              `json:"pluginConfig"`
}

type configArgsJSON struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type configJSON struct {
	APIVersion               string              `json:"apiVersion"`
	Parallelism              int32               `json:"parallelism"`
	PercentageOfNodesToScore int32               `json:"percentageOfNodesToScore"`
	PodInitialBackoffSeconds int64               `json:"podInitialBackoffSeconds"`
	PodMaxBackoffSeconds     int64               `json:"podMaxBackoffSeconds"`
	Profiles                 []configProfileJSON `json:"profiles"`
	YAML                     string              `json:"yaml"`
}

type configErrorJSON struct {
	Stage string `json:"stage"`
	Error string `json:"error"`
}

func configMain(args []string) error {
	file := ""
	p := &argParser{args: args}
	for ; p.i < len(args); p.i++ {
		a := args[p.i]
		name, inline, hasInline := a, "", false
		if eq := strings.IndexByte(a, '='); eq >= 0 {
			name, inline, hasInline = a[:eq], a[eq+1:], true
		}
		switch name {
		case "--config":
			v, err := p.value(name, inline, hasInline)
			if err != nil {
				return err
			}
			if v == "" {
				return usageErrorf("--config needs a file")
			}
			file = v
		default:
			return usageErrorf("config: unknown argument %q", a)
		}
	}
	out, stage, err := effectiveConfig(file)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err != nil {
		if encErr := enc.Encode(configErrorJSON{Stage: stage, Error: err.Error()}); encErr != nil {
			return encErr
		}
		return &inputError{msg: fmt.Sprintf("%s: %v", stage, err)}
	}
	return enc.Encode(out)
}

// effectiveConfig loads (or defaults), validates and builds the profiles; on failure it
// names the stage that refused the configuration.
func effectiveConfig(file string) (*configJSON, string, error) {
	var cfg *config.KubeSchedulerConfiguration
	var err error
	if file == "" {
		cfg, err = latest.Default()
	} else {
		cfg, err = loadConfigAsScheduler(file)
	}
	if err != nil {
		return nil, "load", err
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, "validate", err
	}
	fwks, completed, err := buildProfiles(cfg)
	if err != nil {
		return nil, "profiles", err
	}
	out := &configJSON{
		APIVersion:               cfg.APIVersion,
		Parallelism:              cfg.Parallelism,
		PercentageOfNodesToScore: cfg.PercentageOfNodesToScore,
		PodInitialBackoffSeconds: cfg.PodInitialBackoffSeconds,
		PodMaxBackoffSeconds:     cfg.PodMaxBackoffSeconds,
	}
	for i, prof := range cfg.Profiles {
		pj, err := profileJSON(fwks[prof.SchedulerName], completed[i])
		if err != nil {
			return nil, "output", err
		}
		out.Profiles = append(out.Profiles, pj)
	}
	cfg.Profiles = completed
	y, err := encodeSchedulerConfig(cfg)
	if err != nil {
		return nil, "output", err
	}
	out.YAML = y
	return out, "", nil
}

// loadConfigAsScheduler is cmd/kube-scheduler/app/options.loadConfigFromFile.
func loadConfigAsScheduler(file string) (*config.KubeSchedulerConfiguration, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	if cfgObj, ok := obj.(*config.KubeSchedulerConfiguration); ok {
		cfgObj.TypeMeta.APIVersion = gvk.GroupVersion().String()
		return cfgObj, nil
	}
	return nil, fmt.Errorf("couldn't decode as KubeSchedulerConfiguration, got %s: ", gvk)
}

// buildProfiles is what scheduler.New does with the profiles: profile.NewMap over the
// in-tree registry, capturing each completed profile.
func buildProfiles(cfg *config.KubeSchedulerConfiguration) (profile.Map, []config.KubeSchedulerProfile, error) {
	client := fake.NewSimpleClientset()
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	snapshot := internalcache.NewEmptySnapshot()
	var completed []config.KubeSchedulerProfile
	capture := func(p config.KubeSchedulerProfile) { completed = append(completed, p) }
	noRecorder := func(string) events.EventRecorder { return nil }
	m, err := profile.NewMap(cfg.Profiles, plugins.NewInTreeRegistry(), noRecorder,
		frameworkruntime.WithComponentConfigVersion(cfg.APIVersion),
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithPodNominator(internalqueue.NewPodNominator(informerFactory.Core().V1().Pods().Lister())),
		frameworkruntime.WithCaptureProfile(capture),
		frameworkruntime.WithParallelism(int(cfg.Parallelism)),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("initializing profiles: %v", err)
	}
	if len(m) == 0 {
		return nil, nil, fmt.Errorf("at least one profile is required")
	}
	return m, completed, nil
}

func profileJSON(fwk interface{ ListPlugins() *config.Plugins }, completed config.KubeSchedulerProfile) (configProfileJSON, error) {
	pj := configProfileJSON{
		SchedulerName: completed.SchedulerName,
		Plugins:       map[string][]configPluginJSON{},
		PluginConfig:  []configArgsJSON{},
	}
	l := fwk.ListPlugins()
	points := []struct {
		name string
		set  config.PluginSet
	}{
		{"queueSort", l.QueueSort}, {"preFilter", l.PreFilter}, {"filter", l.Filter},
		{"postFilter", l.PostFilter}, {"preScore", l.PreScore}, {"score", l.Score},
		{"reserve", l.Reserve}, {"permit", l.Permit}, {"preBind", l.PreBind},
		{"bind", l.Bind}, {"postBind", l.PostBind},
	}
	for _, pt := range points {
		list := []configPluginJSON{}
		for _, pl := range pt.set.Enabled {
			e := configPluginJSON{Name: pl.Name}
			if pt.name == "score" {
				w := pl.Weight
				e.Weight = &w
			}
			list = append(list, e)
		}
		pj.Plugins[pt.name] = list
	}
	for _, pc := range completed.PluginConfig {
		raw, err := argsJSON(pc.Args)
		if err != nil {
			return pj, fmt.Errorf("args of %s: %v", pc.Name, err)
		}
		pj.PluginConfig = append(pj.PluginConfig, configArgsJSON{Name: pc.Name, Args: raw})
	}
	return pj, nil
}

// argsJSON is internal plugin args as v1beta3 JSON, without apiVersion and kind.
func argsJSON(args runtime.Object) (json.RawMessage, error) {
	if u, ok := args.(*runtime.Unknown); ok {
		return json.RawMessage(u.Raw), nil
	}
	ext, err := configv1beta3.GetPluginArgConversionScheme().ConvertToVersion(args, configv1beta3.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(ext)
	if err != nil {
		return nil, err
	}
	var m map[string]interface{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	return json.Marshal(m)
}

// encodeSchedulerConfig is cmd/kube-scheduler/app/options.encodeConfig.
func encodeSchedulerConfig(cfg *config.KubeSchedulerConfiguration) (string, error) {
	buf := new(bytes.Buffer)
	const mediaType = runtime.ContentTypeYAML
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
	if !ok {
		return "", fmt.Errorf("unable to locate encoder -- %q is not a supported media type", mediaType)
	}
	var encoder runtime.Encoder
	switch cfg.TypeMeta.APIVersion {
	case configv1beta2.SchemeGroupVersion.String():
		encoder = scheme.Codecs.EncoderForVersion(info.Serializer, configv1beta2.SchemeGroupVersion)
	default:
		encoder = scheme.Codecs.EncoderForVersion(info.Serializer, configv1beta3.SchemeGroupVersion)
	}
	if err := encoder.Encode(cfg, buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}
