package main

// Input loading per docs/contract.md ("Input"): files and directories, multi-document
// YAML, *List kinds, the used kinds, namespace and request defaulting, phase filtering, bound
// pods to absent nodes, pending pods in input order. YAML is turned into JSON by
// sigs.k8s.io/yaml and JSON is decoded into the typed k8s.io/api structs.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	storagev1defaults "k8s.io/kubernetes/pkg/apis/storage/v1"
	"sigs.k8s.io/yaml"
)

// inputError is an error in the user's input: exit code 2.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func inputErrorf(format string, args ...interface{}) error {
	return &inputError{msg: fmt.Sprintf(format, args...)}
}

// inputSet is everything goref takes from the input files.
type inputSet struct {
	Nodes       []*v1.Node
	BoundPods   []*v1.Pod // spec.nodeName names a node of the input, input order
	PendingPods []*v1.Pod // batch order
	Services    []*v1.Service
	RCs         []*v1.ReplicationController
	RSs         []*appsv1.ReplicaSet
	SSs         []*appsv1.StatefulSet
	Namespaces  []*v1.Namespace
	// what the volume plugins read (VolumeZone, VolumeBinding, ...), defaulted as the
	// API server stores them
	PVCs           []*v1.PersistentVolumeClaim
	PVs            []*v1.PersistentVolume
	StorageClasses []*storagev1.StorageClass
	// what the volume limits read (NodeVolumeLimits, EBSLimits, ...): CSINodes (named
	// after their nodes) and CSIDrivers
	CSINodes   []*storagev1.CSINode
	CSIDrivers []*storagev1.CSIDriver
	// what VolumeBinding's capacity check reads (storage.k8s.io/v1beta1, the version
	// v1.23's scheduler lists; v1 objects have the same fields)
	CSIStorageCapacities []*storagev1beta1.CSIStorageCapacity
	// the PriorityClasses the Priority admission plugin reads (admission.go)
	PriorityClasses []*schedulingv1.PriorityClass
	// PodDisruptionBudgets (policy/v1; policy/v1beta1 converted as the API server
	// converts it), input order; PDBStatusGiven[i] says whether PDBs[i] came with a
	// status (else pdb.go computes it as the disruption controller would)
	PDBs           []*policyv1.PodDisruptionBudget
	PDBStatusGiven []bool
	// Deployments are not used by the scheduler (still counted in SkippedKinds); the
	// disruption controller reads them for the expected pod count of a PDB (pdb.go)
	Deployments []*appsv1.Deployment
	// every pod the Priority admission plugin admitted (bound, pending, being deleted,
	// bound to absent nodes), input order: the disruption controller's pods
	AllPods []*v1.Pod
	// the messages of the pods that plugin refused (left out), input order
	RefusedPods []string

	SkippedKinds map[string]int // objects of unused kinds, by kind
	LeftOutPods  int            // bound to nodes absent from the input
	// pending pods with a deletionTimestamp (skipped, as skipPodSchedule skips them)
	DeletingPendingPods int
}

// loader holds the state of one load.
type loader struct {
	in    *inputSet
	seen  map[string]string // duplicate key -> where first seen
	pods  []podAt           // all non-terminal pods in input order
	uids  map[types.UID]string
	count int
}

type podAt struct {
	pod *v1.Pod
	loc string
}

// location names where an object sits: file, document, list item.
type location struct {
	file string
	doc  int    // 1-based YAML document number, 0 for a JSON file
	item string // e.g. "items[3]" or "items[3].items[0]", "" at top level
}

func (l location) String() string {
	s := l.file
	if l.doc > 0 {
		s += fmt.Sprintf(": document %d", l.doc)
	}
	if l.item != "" {
		s += ": " + l.item
	}
	return s
}

func loadInputs(paths []string) (*inputSet, error) {
	ld := &loader{
		in:   &inputSet{SkippedKinds: map[string]int{}},
		seen: map[string]string{},
		uids: map[types.UID]string{},
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, inputErrorf("%s: %v", p, err)
		}
		if st.IsDir() {
			if err := ld.walkDir(p); err != nil {
				return nil, err
			}
			continue
		}
		// A file named explicitly is read whatever its suffix (.json as JSON, else YAML).
		if err := ld.loadFile(p); err != nil {
			return nil, err
		}
	}
	// Pods created as the API server creates them (its Priority admission plugin)
	admitted, refused, err := admitPods(ld.pods, ld.in.PriorityClasses)
	if err != nil {
		return nil, err
	}
	ld.pods, ld.in.RefusedPods = admitted, refused
	for _, pa := range ld.pods {
		ld.in.AllPods = append(ld.in.AllPods, pa.pod)
	}
	// Pods after nodes: a pod bound to a node of the input (anywhere in the input)
	// is an existing pod; one bound to an absent node is left out.
	nodeNames := make(map[string]bool, len(ld.in.Nodes))
	for _, n := range ld.in.Nodes {
		nodeNames[n.Name] = true
	}
	for _, pa := range ld.pods {
		switch {
		case pa.pod.Spec.NodeName == "" && pa.pod.DeletionTimestamp != nil:
			// scheduleOne's skipPodSchedule: a pod being deleted is not scheduled
			ld.in.DeletingPendingPods++
		case pa.pod.Spec.NodeName == "":
			ld.in.PendingPods = append(ld.in.PendingPods, pa.pod)
		case nodeNames[pa.pod.Spec.NodeName]:
			ld.in.BoundPods = append(ld.in.BoundPods, pa.pod)
		default:
			ld.in.LeftOutPods++
		}
	}
	return ld.in, nil
}

func hasInputSuffix(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json")
}

// walkDir visits dir depth first, entries in byte-lexical order of their names
// (os.ReadDir sorts by name), skipping names that start with ".".
func (ld *loader) walkDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return inputErrorf("%s: %v", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p) // follows symlinks
		if err != nil {
			return inputErrorf("%s: %v", p, err)
		}
		if st.IsDir() {
			if err := ld.walkDir(p); err != nil {
				return err
			}
			continue
		}
		if !hasInputSuffix(name) {
			continue
		}
		if err := ld.loadFile(p); err != nil {
			return err
		}
	}
	return nil
}

func (ld *loader) loadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return inputErrorf("%s: %v", path, err)
	}
	if strings.HasSuffix(path, ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var obj interface{}
		if err := dec.Decode(&obj); err != nil {
			if err == io.EOF {
				return nil // empty file
			}
			return inputErrorf("%s: malformed JSON: %v", path, err)
		}
		var extra interface{}
		if err := dec.Decode(&extra); err != io.EOF {
			return inputErrorf("%s: malformed JSON: data after the first JSON value", path)
		}
		return ld.addValue(obj, location{file: path}, "")
	}
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		chunk, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return inputErrorf("%s: document %d: malformed YAML: %v", path, doc, err)
		}
		js, err := yaml.YAMLToJSON(chunk)
		if err != nil {
			return inputErrorf("%s: document %d: malformed YAML: %v", path, doc, err)
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || string(js) == "null" {
			continue // empty document
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		var obj interface{}
		if err := dec.Decode(&obj); err != nil {
			return inputErrorf("%s: document %d: malformed YAML: %v", path, doc, err)
		}
		if err := ld.addValue(obj, location{file: path, doc: doc}, ""); err != nil {
			return err
		}
	}
}

// addValue handles one decoded document or list item. itemKind is the kind a typed
// list (e.g. PodList) gives to its items that carry no kind of their own.
func (ld *loader) addValue(v interface{}, loc location, itemKind string) error {
	obj, ok := v.(map[string]interface{})
	if !ok {
		return inputErrorf("%s: not an object", loc)
	}
	kind, _ := obj["kind"].(string)
	if _, has := obj["kind"]; !has && itemKind != "" {
		kind = itemKind
	}
	if kind == "" {
		return inputErrorf("%s: object without kind", loc)
	}
	if items, isList := obj["items"]; isList && strings.HasSuffix(kind, "List") {
		if items == nil {
			return nil
		}
		arr, ok := items.([]interface{})
		if !ok {
			return inputErrorf("%s: %s: field items: not an array", loc, kind)
		}
		inner := strings.TrimSuffix(kind, "List") // "" for kind List: items carry their kind
		for i, it := range arr {
			sub := loc
			if sub.item != "" {
				sub.item += "."
			}
			sub.item += fmt.Sprintf("items[%d]", i)
			if err := ld.addValue(it, sub, inner); err != nil {
				return err
			}
		}
		return nil
	}
	switch kind {
	case "Node", "Pod", "Service", "ReplicationController", "ReplicaSet", "StatefulSet", "Namespace", "PriorityClass",
		"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "PodDisruptionBudget",
		"CSINode", "CSIDriver", "CSIStorageCapacity":
	case "Deployment":
		ld.in.SkippedKinds[kind]++
		return ld.addDeployment(obj, loc)
	default:
		ld.in.SkippedKinds[kind]++
		return nil
	}
	meta, _ := obj["metadata"].(map[string]interface{})
	name, _ := meta["name"].(string)
	if name == "" {
		return inputErrorf("%s: %s without metadata.name", loc, kind)
	}
	if _, has := obj["kind"]; !has {
		obj["kind"] = kind
	}
	ns, _ := meta["namespace"].(string)
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	what := fmt.Sprintf("%s %s/%s", kind, ns, name)
	clusterScoped := kind == "Node" || kind == "Namespace" || kind == "PriorityClass" ||
		kind == "PersistentVolume" || kind == "StorageClass" || kind == "CSINode" || kind == "CSIDriver"
	if clusterScoped {
		what = kind + " " + name
	}
	if err := checkQuantities(kind, obj); err != nil {
		return inputErrorf("%s: %s: %v", loc, what, err)
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return inputErrorf("%s: %s: %v", loc, what, err)
	}
	var target interface{}
	switch kind {
	case "Node":
		target = &v1.Node{}
	case "Pod":
		target = &v1.Pod{}
	case "Service":
		target = &v1.Service{}
	case "ReplicationController":
		target = &v1.ReplicationController{}
	case "ReplicaSet":
		target = &appsv1.ReplicaSet{}
	case "StatefulSet":
		target = &appsv1.StatefulSet{}
	case "Namespace":
		target = &v1.Namespace{}
	case "PriorityClass":
		target = &schedulingv1.PriorityClass{}
	case "PersistentVolumeClaim":
		target = &v1.PersistentVolumeClaim{}
	case "PersistentVolume":
		target = &v1.PersistentVolume{}
	case "StorageClass":
		target = &storagev1.StorageClass{}
	case "CSINode":
		target = &storagev1.CSINode{}
	case "CSIDriver":
		target = &storagev1.CSIDriver{}
	case "CSIStorageCapacity":
		target = &storagev1beta1.CSIStorageCapacity{}
	case "PodDisruptionBudget":
		target = &policyv1.PodDisruptionBudget{}
	}
	if err := json.Unmarshal(raw, target); err != nil {
		return inputErrorf("%s: %s: %v", loc, what, err)
	}
	// Duplicates: nodes by name, namespaced objects by kind + namespace + name.
	key := kind + "\x00" + ns + "\x00" + name
	if clusterScoped {
		key = kind + "\x00" + name
	}
	if first, dup := ld.seen[key]; dup {
		return inputErrorf("%s: %s: duplicate name (first seen at %s)", loc, what, first)
	}
	ld.seen[key] = loc.String()

	var errs field.ErrorList
	labelsPath := field.NewPath("metadata", "labels")
	switch o := target.(type) {
	case *v1.Node:
		o.Namespace = ""
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		if len(errs) == 0 {
			ld.in.Nodes = append(ld.in.Nodes, o)
		}
	case *v1.Pod:
		o.Namespace = ns
		// The API server's defaulting the scheduler sees: a container's request of a
		// resource it limits but does not request is its limit.
		corev1defaults.SetDefaults_Pod(o)
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		errs = append(errs, validatePodSelectors(o)...)
		if len(errs) == 0 {
			if o.Status.Phase == v1.PodSucceeded || o.Status.Phase == v1.PodFailed {
				return nil // the scheduler's informer drops them
			}
			if o.UID == "" {
				// The scheduler cache keys pods by UID, and an ephemeral volume's claim
				// names its pod's as owner; real pods always have one.
				o.UID = objectUID(ns, name)
			}
			if prev, dup := ld.uids[o.UID]; dup {
				return inputErrorf("%s: %s: field metadata.uid: %q already used by %s", loc, what, o.UID, prev)
			}
			ld.uids[o.UID] = what
			ld.pods = append(ld.pods, podAt{pod: o, loc: loc.String()})
		}
	case *schedulingv1.PriorityClass:
		o.Namespace = ""
		ld.in.PriorityClasses = append(ld.in.PriorityClasses, o)
	case *v1.Namespace:
		o.Namespace = ""
		// The API server sets this label on every namespace (NamespaceDefaultLabelName,
		// locked on in 1.23), whatever the manifest says.
		if o.Labels == nil {
			o.Labels = map[string]string{}
		}
		o.Labels[v1.LabelMetadataName] = o.Name
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		if len(errs) == 0 {
			ld.in.Namespaces = append(ld.in.Namespaces, o)
		}
	case *v1.PersistentVolumeClaim:
		o.Namespace = ns
		// The API server's defaulting (phase Pending, volumeMode Filesystem, ...).
		corev1defaults.SetObjectDefaults_PersistentVolumeClaim(o)
		storedVersion(&o.ObjectMeta)
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		if len(errs) == 0 {
			ld.in.PVCs = append(ld.in.PVCs, o)
		}
	case *v1.PersistentVolume:
		o.Namespace = ""
		// The API server's defaulting (phase Pending, reclaim policy Retain, ...).
		corev1defaults.SetObjectDefaults_PersistentVolume(o)
		storedVersion(&o.ObjectMeta)
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		if len(errs) == 0 {
			ld.in.PVs = append(ld.in.PVs, o)
		}
	case *policyv1.PodDisruptionBudget:
		o.Namespace = ns
		pdb, given, err := decodePDB(obj, raw, ns)
		if err != nil {
			return inputErrorf("%s: %s: %v", loc, what, err)
		}
		ld.in.PDBs = append(ld.in.PDBs, pdb)
		ld.in.PDBStatusGiven = append(ld.in.PDBStatusGiven, given)
	case *storagev1.StorageClass:
		o.Namespace = ""
		// The API server's defaulting: reclaimPolicy Delete, volumeBindingMode Immediate.
		storagev1defaults.SetObjectDefaults_StorageClass(o)
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		if len(errs) == 0 {
			ld.in.StorageClasses = append(ld.in.StorageClasses, o)
		}
	case *storagev1.CSINode:
		o.Namespace = ""
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		if len(errs) == 0 {
			ld.in.CSINodes = append(ld.in.CSINodes, o)
		}
	case *storagev1beta1.CSIStorageCapacity:
		o.Namespace = ns
		o.APIVersion = storagev1beta1.SchemeGroupVersion.String()
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		errs = append(errs, metav1validation.ValidateLabelSelector(o.NodeTopology, field.NewPath("nodeTopology"))...)
		if len(errs) == 0 {
			ld.in.CSIStorageCapacities = append(ld.in.CSIStorageCapacities, o)
		}
	case *storagev1.CSIDriver:
		o.Namespace = ""
		// The API server's defaulting: attachRequired true, storageCapacity false, ...
		storagev1defaults.SetObjectDefaults_CSIDriver(o)
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		if len(errs) == 0 {
			ld.in.CSIDrivers = append(ld.in.CSIDrivers, o)
		}
	case *v1.Service:
		o.Namespace = ns
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		errs = append(errs, metav1validation.ValidateLabels(o.Spec.Selector, field.NewPath("spec", "selector"))...)
		if len(errs) == 0 {
			ld.in.Services = append(ld.in.Services, o)
		}
	case *v1.ReplicationController:
		o.Namespace = ns
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		errs = append(errs, metav1validation.ValidateLabels(o.Spec.Selector, field.NewPath("spec", "selector"))...)
		if len(errs) == 0 {
			ld.in.RCs = append(ld.in.RCs, o)
		}
	case *appsv1.ReplicaSet:
		o.Namespace = ns
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		errs = append(errs, metav1validation.ValidateLabelSelector(o.Spec.Selector, field.NewPath("spec", "selector"))...)
		if len(errs) == 0 {
			ld.in.RSs = append(ld.in.RSs, o)
		}
	case *appsv1.StatefulSet:
		o.Namespace = ns
		errs = metav1validation.ValidateLabels(o.Labels, labelsPath)
		errs = append(errs, metav1validation.ValidateLabelSelector(o.Spec.Selector, field.NewPath("spec", "selector"))...)
		if len(errs) == 0 {
			ld.in.SSs = append(ld.in.SSs, o)
		}
	}
	if len(errs) != 0 {
		return inputErrorf("%s: %s: field %v", loc, what, errs[0])
	}
	return nil
}

// validatePodSelectors checks the label selectors a pod carries (topology spread
// constraints, pod (anti-)affinity terms) the way the API server would.
func validatePodSelectors(p *v1.Pod) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	for i, c := range p.Spec.TopologySpreadConstraints {
		errs = append(errs, metav1validation.ValidateLabelSelector(c.LabelSelector, spec.Child("topologySpreadConstraints").Index(i).Child("labelSelector"))...)
	}
	a := p.Spec.Affinity
	if a == nil {
		return errs
	}
	terms := func(path *field.Path, req []v1.PodAffinityTerm, pref []v1.WeightedPodAffinityTerm) {
		for i, t := range req {
			tp := path.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, metav1validation.ValidateLabelSelector(t.LabelSelector, tp.Child("labelSelector"))...)
			errs = append(errs, metav1validation.ValidateLabelSelector(t.NamespaceSelector, tp.Child("namespaceSelector"))...)
		}
		for i, w := range pref {
			tp := path.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("podAffinityTerm")
			errs = append(errs, metav1validation.ValidateLabelSelector(w.PodAffinityTerm.LabelSelector, tp.Child("labelSelector"))...)
			errs = append(errs, metav1validation.ValidateLabelSelector(w.PodAffinityTerm.NamespaceSelector, tp.Child("namespaceSelector"))...)
		}
	}
	if a.PodAffinity != nil {
		terms(spec.Child("affinity", "podAffinity"), a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if a.PodAntiAffinity != nil {
		terms(spec.Child("affinity", "podAntiAffinity"), a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return errs
}

// checkQuantities parses the resource quantities of pods, nodes, PersistentVolumes and
// PersistentVolumeClaims before the typed decode, so that a malformed one is reported
// with its field path.
func checkQuantities(kind string, obj map[string]interface{}) error {
	var check func(v interface{}, path string) error
	check = func(v interface{}, path string) error {
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var s string
			switch q := m[k].(type) {
			case string:
				s = q
			case json.Number:
				s = q.String()
			case nil:
				continue
			default:
				return fmt.Errorf("field %s[%s]: not a quantity", path, k)
			}
			if _, err := resource.ParseQuantity(s); err != nil {
				return fmt.Errorf("field %s[%s]: malformed quantity %q: %v", path, k, s, err)
			}
		}
		return nil
	}
	get := func(m interface{}, key string) interface{} {
		if mm, ok := m.(map[string]interface{}); ok {
			return mm[key]
		}
		return nil
	}
	switch kind {
	case "Node":
		st := obj["status"]
		for _, f := range []string{"capacity", "allocatable"} {
			if err := check(get(st, f), "status."+f); err != nil {
				return err
			}
		}
	case "Pod":
		spec := obj["spec"]
		if err := check(get(spec, "overhead"), "spec.overhead"); err != nil {
			return err
		}
		for _, cf := range []string{"initContainers", "containers"} {
			cs, _ := get(spec, cf).([]interface{})
			for i, c := range cs {
				res := get(c, "resources")
				for _, f := range []string{"requests", "limits"} {
					if err := check(get(res, f), fmt.Sprintf("spec.%s[%d].resources.%s", cf, i, f)); err != nil {
						return err
					}
				}
			}
		}
	case "PersistentVolume":
		if err := check(get(obj["spec"], "capacity"), "spec.capacity"); err != nil {
			return err
		}
	case "CSIStorageCapacity":
		top := map[string]interface{}{"capacity": obj["capacity"], "maximumVolumeSize": obj["maximumVolumeSize"]}
		if err := check(top, ""); err != nil {
			return err
		}
	case "PersistentVolumeClaim":
		res := get(obj["spec"], "resources")
		for _, f := range []string{"requests", "limits"} {
			if err := check(get(res, f), "spec.resources."+f); err != nil {
				return err
			}
		}
		for _, f := range []string{"capacity", "allocatedResources"} {
			if err := check(get(obj["status"], f), "status."+f); err != nil {
				return err
			}
		}
	}
	return nil
}

// warningLine is the one stderr line counting what was skipped ("" when nothing was).
func (in *inputSet) warningLine(prog string) string {
	var parts []string
	if len(in.SkippedKinds) > 0 {
		kinds := make([]string, 0, len(in.SkippedKinds))
		total := 0
		for k, n := range in.SkippedKinds {
			kinds = append(kinds, k)
			total += n
		}
		sort.Strings(kinds)
		var each []string
		for _, k := range kinds {
			each = append(each, fmt.Sprintf("%s %d", k, in.SkippedKinds[k]))
		}
		parts = append(parts, fmt.Sprintf("skipped %d objects of unused kinds (%s)", total, strings.Join(each, ", ")))
	}
	if in.LeftOutPods > 0 {
		parts = append(parts, fmt.Sprintf("left out %d pods bound to nodes absent from the input", in.LeftOutPods))
	}
	if in.DeletingPendingPods > 0 {
		parts = append(parts, fmt.Sprintf("skipped %d pending pods being deleted (metadata.deletionTimestamp set)", in.DeletingPendingPods))
	}
	if n := len(in.RefusedPods); n > 0 {
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (and %d more)", n-1)
		}
		parts = append(parts, fmt.Sprintf("%d pods refused by the Priority admission plugin, not scheduled: %s%s", n, in.RefusedPods[0], more))
	}
	if len(parts) == 0 {
		return ""
	}
	return prog + ": " + strings.Join(parts, "; ")
}

// storedVersion gives an object without metadata.resourceVersion one, as the API server
// gives every stored object (the fake clientset's tracker sets none). VolumeBinding's
// assume cache parses the versions of the PersistentVolumes and claims it assumes
// (Reserve); without one, Reserve would fail where a real cluster cannot.
func storedVersion(meta *metav1.ObjectMeta) {
	if meta.ResourceVersion == "" {
		meta.ResourceVersion = "1"
	}
}
