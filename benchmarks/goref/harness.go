package main

// The score harness: the real scheduler cache, snapshot, framework and
// genericScheduler.Schedule of k8s.io/kubernetes v1.23.6, fed with the loaded input.

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	internalcache "k8s.io/kubernetes/pkg/scheduler/internal/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/internal/queue"
)

// pluginSpec is one --plugins entry.
type pluginSpec struct {
	Name   string
	Weight int32
}

type scoreOptions struct {
	Plugins       []pluginSpec // used when ConfigFile == ""
	ConfigFile    string
	Seed          int64
	Percentage    int32
	PercentageSet bool
	// Plain builds the framework from the unwrapped in-tree registry (no recording), for
	// timing: harness.plain is then that framework.
	Plain bool
	// AllProfiles builds a framework for every profile of --config (goref replay), each
	// over its own recording registry; the first one is still harness.fwk. Without it
	// only the first profile is built and used for every pod.
	AllProfiles bool
	// Preemption: scheduleOne's failure handling runs for real (PostFilter, nominations,
	// status updates): every pod is in the fake clientset, kept there by a podMirror,
	// and DefaultPreemption is recorded (preemption.go).
	Preemption bool
	// Explain: DefaultPreemption is recorded and runs dry (score --explain).
	Explain bool
	// PreemptionTies: --preemption-ties (go, first, name; "" is go).
	PreemptionTies string
	// DefaultProfile: without ConfigFile, the whole configuration latest.Default() (the
	// v1beta3 default profile) instead of the --plugins profile.
	DefaultProfile bool
	// BeforeStart runs once the frameworks are built, before the informers start and
	// before rand.Seed (goref replay builds its scheduling queue there: the queue's
	// Namespaces lister must be registered before the informer factory starts).
	BeforeStart func(h *harness, f informers.SharedInformerFactory) error
}

// JSON document of docs/contract.md.
type pluginScoreJSON struct {
	Raw        int64 `json:"raw"`
	Normalized int64 `json:"normalized"`
	Weighted   int64 `json:"weighted"`
}

type nodeScoreJSON struct {
	Node    string                     `json:"node"`
	Total   int64                      `json:"total"`
	Plugins map[string]pluginScoreJSON `json:"plugins"`
}

type resultJSON struct {
	Pod            string          `json:"pod"`
	Host           *string         `json:"host"`
	FeasibleNodes  int             `json:"feasibleNodes"`
	EvaluatedNodes int             `json:"evaluatedNodes"`
	Error          *string         `json:"error"`
	Scores         []nodeScoreJSON `json:"scores"`
	// TraceDraws: rand.Int31() draws of this cycle's logged trace (see slowCycles).
	TraceDraws int64 `json:"traceDraws,omitempty"`
	// PostFilter's part, for a pod that failed with --preemption or score --explain.
	*preemptionJSON
	// Retry: the immediate retry of a pod that preempted (simulate --retry-nominated).
	Retry bool `json:"retry,omitempty"`
	// VolumeBindings: what VolumeBinding's Reserve assumed for the pod bound (simulate).
	VolumeBindings []volumeBindingJSON `json:"volumeBindings,omitempty"`
	// scheduleErr is the error genericScheduler.Schedule returned (not output; goref
	// replay reads a *framework.FitError's Diagnosis from it).
	scheduleErr error
	// postFilter: the failure's PostFilter outcome (with --preemption), for
	// recordFailure.
	postFilter postFilterOutcome
}

// harness is one configured scheduler over one input.
type harness struct {
	cache    internalcache.Cache
	snapshot *internalcache.Snapshot
	alg      scheduler.ScheduleAlgorithm
	fwk      *recordingFramework
	plain    framework.Framework // the framework itself (unwrapped with opts.Plain)
	recs     *recorders
	stop     chan struct{}
	// state is the CycleState of the last cycle (PostFilter runs with it).
	state *framework.CycleState
	// client is the fake clientset; mirror keeps its pods (opts.Preemption, else nil).
	client *fake.Clientset
	mirror *podMirror
	// binders: the VolumeBinding plugins built and what their Reserve assumed.
	binders *volumeBinders
	// volumeEvents: goref replay's informer handlers of the PV and PVC events
	// (volumeevents.go); nil elsewhere
	volumeEvents *volumeEvents
	// informers: the informer factory the scheduler's listers come from.
	informers informers.SharedInformerFactory

	// profiles: the first profile's framework (fwk, plain, recs above), then, with
	// opts.AllProfiles, one per further profile of the configuration, in its order.
	profiles []*profileFramework
	// eventMap is the cluster event -> plugin names map every profile's framework filled
	// (frameworkruntime.WithClusterEventMap, as pkg/scheduler's New/factory.go build it).
	eventMap map[framework.ClusterEvent]sets.String
	// nominator is the PodNominator the frameworks were built with (factory.go gives the
	// same one to the scheduling queue).
	nominator framework.PodNominator
	// podInitialBackoffSeconds, podMaxBackoffSeconds of the KubeSchedulerConfiguration
	// (latest.Default()'s without --config: 1 and 10).
	podInitialBackoffSeconds int64
	podMaxBackoffSeconds     int64
}

// profileFramework is one profile's framework: the recording wrapper, the framework
// itself and the recorders of its score plugins.
type profileFramework struct {
	name  string
	fwk   *recordingFramework
	plain framework.Framework
	recs  *recorders
}

// loadSchedulerConfig decodes and defaults a KubeSchedulerConfiguration file with the
// scheduler's own scheme (as cmd/kube-scheduler's loadConfig does) and validates it.
func loadSchedulerConfig(path string) (*config.KubeSchedulerConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputErrorf("--config %s: %v", path, err)
	}
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, inputErrorf("--config %s: %v", path, err)
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, inputErrorf("--config %s: not a KubeSchedulerConfiguration but %s", path, gvk)
	}
	cfg.TypeMeta.APIVersion = gvk.GroupVersion().String()
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, inputErrorf("--config %s: %v", path, err)
	}
	if len(cfg.Extenders) != 0 {
		return nil, inputErrorf("--config %s: extenders are not supported by goref", path)
	}
	if len(cfg.Profiles) == 0 {
		return nil, inputErrorf("--config %s: no profile", path)
	}
	return cfg, nil
}

// newHarness builds cache, snapshot, informers and framework, then seeds math/rand.
func newHarness(in *inputSet, opts scoreOptions) (*harness, error) {
	// Profile and percentageOfNodesToScore.
	var profile config.KubeSchedulerProfile
	var more []config.KubeSchedulerProfile // further profiles (opts.AllProfiles)
	var pct int32
	componentConfigVersion := ""
	var initialBackoff, maxBackoff int64
	if opts.ConfigFile != "" {
		cfg, err := loadSchedulerConfig(opts.ConfigFile)
		if err != nil {
			return nil, err
		}
		profile = cfg.Profiles[0]
		if opts.AllProfiles {
			more = cfg.Profiles[1:]
		}
		pct = cfg.PercentageOfNodesToScore
		componentConfigVersion = cfg.TypeMeta.APIVersion
		initialBackoff, maxBackoff = cfg.PodInitialBackoffSeconds, cfg.PodMaxBackoffSeconds
	} else if opts.DefaultProfile {
		cfg, err := latest.Default()
		if err != nil {
			return nil, err
		}
		profile = cfg.Profiles[0]
		pct = cfg.PercentageOfNodesToScore
		componentConfigVersion = cfg.TypeMeta.APIVersion
		initialBackoff, maxBackoff = cfg.PodInitialBackoffSeconds, cfg.PodMaxBackoffSeconds
	} else {
		// Plugin args (e.g. NodeResourcesFitArgs) come defaulted from latest.Default();
		// the plugin lists are ours: PrioritySort, DefaultBinder and the score plugins.
		def, err := latest.Default()
		if err != nil {
			return nil, err
		}
		profile = config.KubeSchedulerProfile{
			SchedulerName: def.Profiles[0].SchedulerName,
			PluginConfig:  def.Profiles[0].PluginConfig,
			Plugins:       &config.Plugins{},
		}
		componentConfigVersion = def.TypeMeta.APIVersion
		pct = def.PercentageOfNodesToScore
		initialBackoff, maxBackoff = def.PodInitialBackoffSeconds, def.PodMaxBackoffSeconds
	}
	if opts.PercentageSet {
		pct = opts.Percentage
	}

	// Controllers and services reach the plugins through informers over a fake clientset.
	var objs []runtime.Object
	objs = appendObjects(objs, in.Services)
	objs = appendObjects(objs, in.RCs)
	objs = appendObjects(objs, in.RSs)
	objs = appendObjects(objs, in.SSs)
	objs = appendObjects(objs, in.Namespaces) // InterPodAffinity's namespaceSelector lister
	// The volume plugins' listers (VolumeZone, VolumeBinding, ...); their informers are
	// registered by the plugins' New (NewFramework below), before the factory starts.
	objs = appendObjects(objs, in.PVCs)
	objs = appendObjects(objs, in.PVs)
	objs = appendObjects(objs, in.StorageClasses)
	objs = appendObjects(objs, in.CSINodes)
	objs = appendObjects(objs, in.CSIDrivers)
	objs = appendObjects(objs, in.CSIStorageCapacities) // VolumeBinding's capacity check
	// DefaultPreemption's PDB lister; a PDB without status gets the disruption
	// controller's (pdb.go).
	if opts.Preemption || opts.Explain {
		if err := computePDBStatuses(in); err != nil {
			return nil, err
		}
	}
	objs = appendObjects(objs, in.PDBs)
	// With --preemption the scheduler's code reads and writes pods through the clientset.
	mirrored := 0
	if opts.Preemption {
		objs = appendObjects(appendObjects(objs, in.BoundPods), in.PendingPods)
		mirrored = len(in.BoundPods) + len(in.PendingPods)
	}
	client := fake.NewSimpleClientset(objs...)
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	var mirror *podMirror
	if opts.Preemption {
		mirror = newPodMirror(client, informerFactory, mirrored)
	}

	// The real scheduler cache: nodes in input order, then the bound pods.
	stop := make(chan struct{})
	cache := internalcache.New(15*time.Minute, stop) // durationToExpireAssumedPod of scheduler.go
	for _, n := range in.Nodes {
		cache.AddNode(n)
	}
	for _, p := range in.BoundPods {
		if err := cache.AddPod(p); err != nil {
			close(stop)
			return nil, inputErrorf("Pod %s/%s: scheduler cache refused it: %v", p.Namespace, p.Name, err)
		}
	}
	snapshot := internalcache.NewEmptySnapshot()

	// One recording registry per profile: a recorder is keyed by plugin name, and two
	// profiles may both have a plugin of a name.
	binders := &volumeBinders{}
	newRegistry := func() (frameworkruntime.Registry, *recorders) {
		recs := &recorders{m: map[string]*recorder{}}
		if opts.Plain {
			return binders.wrap(plugins.NewInTreeRegistry()), recs
		}
		reg := wrapRegistry(binders.wrap(plugins.NewInTreeRegistry()), recs)
		if opts.Preemption || opts.Explain {
			ties := opts.PreemptionTies
			if ties == "" {
				ties = "go"
			}
			wrapPreemption(reg, recs, opts.Explain, ties)
		}
		return reg, recs
	}
	registry, recs := newRegistry()
	nominator := internalqueue.NewPodNominator(informerFactory.Core().V1().Pods().Lister())
	fwOpts := []frameworkruntime.Option{
		frameworkruntime.WithComponentConfigVersion(componentConfigVersion),
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithPodNominator(nominator),
		frameworkruntime.WithParallelism(1),
		// DefaultPreemption's prepareCandidate records an event per victim.
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
	}
	// Filled in place by every profile's NewFramework (not by pluginsProfile's
	// profile-less handle below), as scheduler.New passes one map to all profiles.
	eventMap := make(map[framework.ClusterEvent]sets.String)
	profileOpts := append(append([]frameworkruntime.Option(nil), fwOpts...), frameworkruntime.WithClusterEventMap(eventMap))

	if opts.ConfigFile == "" && !opts.DefaultProfile {
		pl, err := pluginsProfile(registry, profile.PluginConfig, opts.Plugins, fwOpts)
		if err != nil {
			close(stop)
			return nil, err
		}
		profile.Plugins = pl
	}

	fwk, err := frameworkruntime.NewFramework(registry, &profile, profileOpts...)
	if err != nil {
		close(stop)
		return nil, inputErrorf("building the framework: %v", err)
	}
	h := &harness{
		cache:                    cache,
		snapshot:                 snapshot,
		fwk:                      &recordingFramework{Framework: fwk},
		plain:                    fwk,
		recs:                     recs,
		stop:                     stop,
		eventMap:                 eventMap,
		nominator:                nominator,
		client:                   client,
		mirror:                   mirror,
		binders:                  binders,
		informers:                informerFactory,
		podInitialBackoffSeconds: initialBackoff,
		podMaxBackoffSeconds:     maxBackoff,
	}
	h.profiles = []*profileFramework{{name: profile.SchedulerName, fwk: h.fwk, plain: fwk, recs: recs}}
	for i := range more {
		reg, rs := newRegistry()
		f, err := frameworkruntime.NewFramework(reg, &more[i], profileOpts...)
		if err != nil {
			close(stop)
			return nil, inputErrorf("building the framework of profile %q: %v", more[i].SchedulerName, err)
		}
		h.profiles = append(h.profiles, &profileFramework{name: more[i].SchedulerName, fwk: &recordingFramework{Framework: f}, plain: f, recs: rs})
	}
	if opts.BeforeStart != nil {
		if err := opts.BeforeStart(h, informerFactory); err != nil {
			close(stop)
			return nil, err
		}
	}

	if err := startInformers(informerFactory, client, stop); err != nil {
		close(stop)
		return nil, err
	}
	if err := binders.wait(in.PVCs, in.PVs); err != nil {
		close(stop)
		return nil, err
	}
	if mirror != nil {
		if err := mirror.start(); err != nil {
			close(stop)
			return nil, err
		}
	}

	rand.Seed(opts.Seed)

	h.alg = scheduler.NewGenericScheduler(cache, snapshot, pct)
	return h, nil
}

// startInformers starts the informers of f, waits for their caches, and waits until every
// reflector has opened its watch on client: a reflector draws rand.Float64() from the
// global math/rand just before it calls Watch, which must happen before rand.Seed.
func startInformers(f informers.SharedInformerFactory, client *fake.Clientset, stop chan struct{}) error {
	f.Start(stop)
	synced := f.WaitForCacheSync(stop)
	for typ, ok := range synced {
		if !ok {
			return fmt.Errorf("informer cache of %v did not sync", typ)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for countWatches(client) < len(synced) {
		if time.Now().After(deadline) {
			return fmt.Errorf("informers did not open their watches")
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// appendObjects appends items to objs.
func appendObjects[T runtime.Object](objs []runtime.Object, items []T) []runtime.Object {
	for _, o := range items {
		objs = append(objs, o)
	}
	return objs
}

func countWatches(c *fake.Clientset) int {
	n := 0
	for _, a := range c.Actions() {
		if a.GetVerb() == "watch" {
			n++
		}
	}
	return n
}

// pluginsProfile builds the plugin lists for --plugins: PrioritySort (queueSort),
// DefaultBinder (bind), and each score plugin at Score with its weight and at PreScore
// when it implements PreScorePlugin. To know that, each plugin is instantiated once
// from the registry against a profile-less framework handle and then dropped.
func pluginsProfile(registry frameworkruntime.Registry, args []config.PluginConfig, specs []pluginSpec, fwOpts []frameworkruntime.Option) (*config.Plugins, error) {
	pl := &config.Plugins{
		QueueSort: config.PluginSet{Enabled: []config.Plugin{{Name: queuesort.Name}}},
		Bind:      config.PluginSet{Enabled: []config.Plugin{{Name: defaultbinder.Name}}},
	}
	if len(specs) == 0 {
		return pl, nil
	}
	handle, err := frameworkruntime.NewFramework(registry, nil, fwOpts...)
	if err != nil {
		return nil, err
	}
	argsOf := map[string]runtime.Object{}
	for _, a := range args {
		argsOf[a.Name] = a.Args
	}
	for _, s := range specs {
		factory, ok := registry[s.Name]
		if !ok {
			return nil, inputErrorf("--plugins: unknown plugin %q", s.Name)
		}
		p, err := factory(argsOf[s.Name], handle)
		if err != nil {
			return nil, inputErrorf("--plugins: initializing plugin %q: %v", s.Name, err)
		}
		if _, ok := p.(framework.ScorePlugin); !ok {
			return nil, inputErrorf("--plugins: %q is not a score plugin", s.Name)
		}
		if _, ok := p.(framework.PreScorePlugin); ok {
			pl.PreScore.Enabled = append(pl.PreScore.Enabled, config.Plugin{Name: s.Name})
		}
		pl.Score.Enabled = append(pl.Score.Enabled, config.Plugin{Name: s.Name, Weight: s.Weight})
	}
	return pl, nil
}

func (h *harness) close() { close(h.stop) }

// nextStartNodeIndex reads genericScheduler.nextStartNodeIndex (unexported; read only).
func (h *harness) nextStartNodeIndex() int {
	v := reflect.ValueOf(h.alg)
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	return int(v.Elem().FieldByName("nextStartNodeIndex").Int())
}

// schedule runs one genericScheduler.Schedule cycle for pod and reports it.
func (h *harness) schedule(ctx context.Context, pod *v1.Pod) (resultJSON, error) {
	res := resultJSON{Pod: pod.Namespace + "/" + pod.Name, Scores: []nodeScoreJSON{}}
	h.recs.resetAll()
	h.fwk.resetCycle()
	start := h.nextStartNodeIndex()

	state := framework.NewCycleState()
	h.state = state
	slow := slowCycles.Load()
	sr, err := h.alg.Schedule(ctx, nil, h.fwk, state, pod)
	res.TraceDraws = slowCycles.Load() - slow
	res.FeasibleNodes = sr.FeasibleNodes
	res.EvaluatedNodes = sr.EvaluatedNodes
	if err != nil {
		msg := err.Error()
		res.Error = &msg
		res.scheduleErr = err
		return res, nil
	}
	host := sr.SuggestedHost
	res.Host = &host
	if sr.FeasibleNodes <= 1 {
		return res, nil // single feasible node: nothing was scored
	}

	if !h.fwk.HasScorePlugins() {
		// prioritizeNodes gave every feasible node score 1 without calling any plugin.
		// The feasible list, in order:
		//  - with filter plugins: the nodes that passed RunFilterPluginsWithNominatedPods
		//    in call order (parallelism 1: the order findNodesThatPassFilters stored
		//    them), the first FeasibleNodes of them (one more may have passed and been
		//    dropped when the count was exceeded);
		//  - without: findNodesThatPassFilters' "!HasFilterPlugins()" loop, i.e.
		//    nodes[(start+i) % len(nodes)] for i < FeasibleNodes, from the snapshot's
		//    node list and the nextStartNodeIndex read before the cycle.
		var names []string
		if h.fwk.HasFilterPlugins() {
			names = h.fwk.passed
			if len(names) < sr.FeasibleNodes {
				return res, fmt.Errorf("goref: recorded %d passing nodes, Schedule reported %d feasible", len(names), sr.FeasibleNodes)
			}
			names = names[:sr.FeasibleNodes]
		} else {
			list, err := h.snapshot.NodeInfos().List()
			if err != nil {
				return res, err
			}
			for i := 0; i < sr.FeasibleNodes; i++ {
				names = append(names, list[(start+i)%len(list)].Node().Name)
			}
		}
		for _, n := range names {
			res.Scores = append(res.Scores, nodeScoreJSON{Node: n, Total: 1, Plugins: map[string]pluginScoreJSON{}})
		}
		return res, nil
	}

	if !h.fwk.scoreCalled {
		return res, fmt.Errorf("goref: Schedule scored %d nodes but RunScorePlugins was not observed", sr.FeasibleNodes)
	}
	for i, node := range h.fwk.scoreNodes {
		ns := nodeScoreJSON{Node: node, Plugins: map[string]pluginScoreJSON{}}
		for name, list := range h.fwk.scores {
			if list[i].Name != node {
				return res, fmt.Errorf("goref: plugin %s score list out of node order at %d", name, i)
			}
			r := h.recs.get(name)
			if r == nil {
				return res, fmt.Errorf("goref: no recorder for score plugin %s", name)
			}
			raw, ok := r.raw[node]
			if !ok {
				return res, fmt.Errorf("goref: no raw score of plugin %s for node %s", name, node)
			}
			norm := raw
			if r.hasNorm {
				norm = r.normalized[node]
			}
			ns.Plugins[name] = pluginScoreJSON{Raw: raw, Normalized: norm, Weighted: list[i].Score}
			ns.Total += list[i].Score // as prioritizeNodes sums them
		}
		res.Scores = append(res.Scores, ns)
	}
	return res, nil
}
