package main

// PostFilter and preemption (--preemption, score --explain): the real DefaultPreemption
// plugin of the profile, observed.
//
// The plugin's PostFilter is three lines: it builds a preemption.Evaluator over its
// framework handle, its pod and PDB listers, the cycle state and itself (the plugin
// implements preemption.Interface), and calls Preempt. goref's registry returns the real
// plugin inside preemptionPlugin, whose PostFilter builds the same Evaluator over the same
// handle and listers (read from the plugin) with one difference: the Interface is the
// plugin inside preemptionObserver, which delegates every call and keeps what passes:
// the offset and candidate count GetOffsetAndNumCandidates drew (its rand.Int31n is the
// draw the go-rand replay must count), each node's victims from SelectVictimsOnNode, and
// the candidates SelectCandidate hands to CandidatesToVictimsMap before
// pickOneNodeForPreemption. pickOneNodeForPreemption ends by iterating a Go map, so the
// node it returns among nodes that tie on all its criteria is not reproducible; goref
// reports that tie set (preemptionTies), the criteria evaluated on the same victims.
//
// score --explain runs the plugin "dry": Preempt's eligibility check, findCandidates
// (through go:linkname) and SelectCandidate, and not prepareCandidate (which evicts the
// victims and clears other nominations): nothing is applied.

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"sync"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientset "k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// evaluatorFindCandidates is preemption.Evaluator's findCandidates (nodes where
// preemption might help, the PDBs, GetOffsetAndNumCandidates, DryRunPreemption).
//
//go:linkname evaluatorFindCandidates k8s.io/kubernetes/pkg/scheduler/framework/preemption.(*Evaluator).findCandidates
func evaluatorFindCandidates(ev *preemption.Evaluator, ctx context.Context, pod *v1.Pod, m framework.NodeToStatusMap) ([]preemption.Candidate, framework.NodeToStatusMap, error)

// schedulerUpdatePod is scheduler.go's updatePod: the status update of a pod that failed
// (its PodScheduled condition and, as the nominating info says, its nominatedNodeName).
//
//go:linkname schedulerUpdatePod k8s.io/kubernetes/pkg/scheduler.updatePod
func schedulerUpdatePod(client clientset.Interface, pod *v1.Pod, condition *v1.PodCondition, nominatingInfo *framework.NominatingInfo) error

// clearNominatedNode is scheduler.go's: the nominating info of a cycle that failed
// otherwise than with a FitError.
var clearNominatedNode = &framework.NominatingInfo{NominatingMode: framework.ModeOverride, NominatedNodeName: ""}

// preemptionRecord is what one PostFilter of the plugin did.
type preemptionRecord struct {
	ran                   bool
	drew                  bool // GetOffsetAndNumCandidates was called (one rand.Int31n)
	offset, numCandidates int32
	// victims by node of every SelectVictimsOnNode that found some (dry runs)
	victims map[string]*extenderv1.Victims
	// the candidates SelectCandidate chose among (CandidatesToVictimsMap; nil when it
	// had one candidate or none) and the map it built from them
	candidates []string
	victimsMap map[string]*extenderv1.Victims
}

// preemptionObserver is the plugin as the Evaluator's Interface, every call recorded.
type preemptionObserver struct {
	inner preemption.Interface
	// tieBreak (--preemption-ties): "go" leaves pickOneNodeForPreemption's last step to
	// Go's map iteration; "first" and "name" hand it only the tie set's first node in
	// candidate order, or by name, so that runs are reproducible.
	tieBreak string
	mu       sync.Mutex
	rec      preemptionRecord
}

func (o *preemptionObserver) GetOffsetAndNumCandidates(nodes int32) (int32, int32) {
	off, num := o.inner.GetOffsetAndNumCandidates(nodes)
	o.mu.Lock()
	o.rec.drew, o.rec.offset, o.rec.numCandidates = true, off, num
	o.mu.Unlock()
	return off, num
}

func (o *preemptionObserver) CandidatesToVictimsMap(candidates []preemption.Candidate) map[string]*extenderv1.Victims {
	m := o.inner.CandidatesToVictimsMap(candidates)
	names := make([]string, len(candidates))
	for i, c := range candidates {
		names[i] = c.Name()
	}
	o.mu.Lock()
	o.rec.candidates, o.rec.victimsMap = names, m
	o.mu.Unlock()
	if o.tieBreak == "go" || len(m) < 2 {
		return m
	}
	ties := preemptionTies(m)
	pick := ties[0] // "name": the tie set is sorted by name
	if o.tieBreak == "first" {
		in := map[string]bool{}
		for _, n := range ties {
			in[n] = true
		}
		for _, n := range names {
			if in[n] {
				pick = n
				break
			}
		}
	}
	return map[string]*extenderv1.Victims{pick: m[pick]}
}

func (o *preemptionObserver) PodEligibleToPreemptOthers(pod *v1.Pod, nominatedNodeStatus *framework.Status) bool {
	return o.inner.PodEligibleToPreemptOthers(pod, nominatedNodeStatus)
}

func (o *preemptionObserver) SelectVictimsOnNode(ctx context.Context, state *framework.CycleState, pod *v1.Pod,
	nodeInfo *framework.NodeInfo, pdbs []*policy.PodDisruptionBudget) ([]*v1.Pod, int, *framework.Status) {
	pods, n, st := o.inner.SelectVictimsOnNode(ctx, state, pod, nodeInfo, pdbs)
	if st.IsSuccess() && len(pods) != 0 {
		o.mu.Lock()
		o.rec.victims[nodeInfo.Node().Name] = &extenderv1.Victims{Pods: pods, NumPDBViolations: int64(n)}
		o.mu.Unlock()
	}
	return pods, n, st
}

// preemptionPlugin is the profile's DefaultPreemption as goref registers it.
type preemptionPlugin struct {
	inner     *defaultpreemption.DefaultPreemption
	fh        framework.Handle
	podLister corelisters.PodLister
	pdbLister policylisters.PodDisruptionBudgetLister
	obs       *preemptionObserver
	dry       bool // score --explain: nothing applied
}

func (w *preemptionPlugin) Name() string { return w.inner.Name() }

// evaluator is the Evaluator the plugin's PostFilter builds, over the observer.
func (w *preemptionPlugin) evaluator(state *framework.CycleState) *preemption.Evaluator {
	return &preemption.Evaluator{
		PluginName: names.DefaultPreemption,
		Handler:    w.fh,
		PodLister:  w.podLister,
		PdbLister:  w.pdbLister,
		State:      state,
		Interface:  w.obs,
	}
}

// reset starts the record of a PostFilter.
func (w *preemptionPlugin) reset() {
	w.obs.mu.Lock()
	w.obs.rec = preemptionRecord{victims: map[string]*extenderv1.Victims{}}
	w.obs.mu.Unlock()
}

// PostFilter is the plugin's (Evaluator.Preempt), or with dry its steps that apply
// nothing.
func (w *preemptionPlugin) PostFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, m framework.NodeToStatusMap) (*framework.PostFilterResult, *framework.Status) {
	w.obs.mu.Lock()
	w.obs.rec.ran = true
	w.obs.mu.Unlock()
	pe := w.evaluator(state)
	if !w.dry {
		return pe.Preempt(ctx, pod, m)
	}
	// Preempt without step 0 (the pod refreshed from the informer: the batch's pod is
	// used), step 3 (extenders: goref has none) and step 5 (prepareCandidate).
	if !pe.PodEligibleToPreemptOthers(pod, m[pod.Status.NominatedNodeName]) {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	candidates, nodeToStatusMap, err := evaluatorFindCandidates(pe, ctx, pod, m)
	if err != nil && len(candidates) == 0 {
		return nil, framework.AsStatus(err)
	}
	if len(candidates) == 0 {
		fitError := &framework.FitError{Pod: pod, NumAllNodes: len(nodeToStatusMap),
			Diagnosis: framework.Diagnosis{NodeToStatusMap: nodeToStatusMap}}
		return framework.NewPostFilterResultWithNominatedNode(""), framework.NewStatus(framework.Unschedulable, fitError.Error())
	}
	best := pe.SelectCandidate(candidates)
	if best == nil || len(best.Name()) == 0 {
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	return framework.NewPostFilterResultWithNominatedNode(best.Name()), framework.NewStatus(framework.Success)
}

// unexportedField reads a struct field of *ptr that Go does not export (read only).
func unexportedField(ptr interface{}, name string) interface{} {
	v := reflect.ValueOf(ptr).Elem().FieldByName(name)
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Interface()
}

// preemptionTieBreaks are the values of --preemption-ties.
var preemptionTieBreaks = map[string]bool{"go": true, "first": true, "name": true}

// wrapPreemption makes reg's DefaultPreemption a preemptionPlugin, recorded in rs.
func wrapPreemption(reg frameworkruntime.Registry, rs *recorders, dry bool, tieBreak string) {
	factory, ok := reg[names.DefaultPreemption]
	if !ok {
		return
	}
	reg[names.DefaultPreemption] = func(args runtime.Object, fh framework.Handle) (framework.Plugin, error) {
		p, err := factory(args, fh)
		if err != nil {
			return nil, err
		}
		inner, ok := p.(*defaultpreemption.DefaultPreemption)
		if !ok {
			return nil, fmt.Errorf("goref: DefaultPreemption is a %T", p)
		}
		podLister, _ := unexportedField(inner, "podLister").(corelisters.PodLister)
		pdbLister, _ := unexportedField(inner, "pdbLister").(policylisters.PodDisruptionBudgetLister)
		w := &preemptionPlugin{inner: inner, fh: fh, podLister: podLister, pdbLister: pdbLister,
			obs: &preemptionObserver{inner: inner, tieBreak: tieBreak}, dry: dry}
		if interfaceBits(w) != interfaceBits(inner) {
			return nil, fmt.Errorf("goref: the DefaultPreemption wrapper has interface bits %#x, the plugin %#x", interfaceBits(w), interfaceBits(inner))
		}
		w.reset()
		rs.mu.Lock()
		rs.preemption = w
		rs.mu.Unlock()
		return w, nil
	}
}

// victimJSON is one victim of a preemption.
type victimJSON struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Priority  int32  `json:"priority"`
}

// preemptionJSON is what PostFilter did for a pod that failed (--preemption, score
// --explain); the result objects of pods that fit have none of these fields.
type preemptionJSON struct {
	// the pod's status.nominatedNodeName after the attempt, as recordSchedulingFailure
	// leaves it: PostFilter's node; null when PostFilter cleared it (no candidate) or
	// the cycle failed otherwise than with a FitError; unchanged when PostFilter gave no
	// result (e.g. preemptionPolicy Never)
	NominatedNode *string `json:"nominatedNode"`
	// the victims of the chosen candidate (evicted, or with --explain to be evicted), in
	// SelectVictimsOnNode's order, and how many of them violate a PDB
	Victims       []victimJSON `json:"victims"`
	PDBViolations int64        `json:"pdbViolations"`
	// RunPostFilterPlugins' status (code name and message); null when it did not run
	PostFilterCode    *string `json:"postFilterCode"`
	PostFilterMessage string  `json:"postFilterMessage"`
	// GetOffsetAndNumCandidates ran: rand.Int31n(potential nodes) was drawn from the
	// global math/rand (selectHost's source); the offset it drew and the candidate count
	PreemptionDraw          bool   `json:"preemptionDraw"`
	PreemptionOffset        *int32 `json:"preemptionOffset"`
	PreemptionNumCandidates *int32 `json:"preemptionNumCandidates"`
	// the candidates DryRunPreemption returned (non-violating ones first), and the nodes
	// that tie with the chosen one on all of pickOneNodeForPreemption's criteria (sorted;
	// Go's pick among them iterates a map)
	PreemptionCandidates []string `json:"preemptionCandidates"`
	PreemptionTies       []string `json:"preemptionTies"`
}

// postFilterOutcome is PostFilter's part of a failed cycle: the output, and what
// recordSchedulingFailure gets.
type postFilterOutcome struct {
	json       *preemptionJSON
	nominating *framework.NominatingInfo
	reason     string // the PodScheduled condition's reason
}

// runPostFilter is scheduleOne's handling of a Schedule error: for a FitError, the
// profile's PostFilter plugins with the cycle's state and the FitError's node statuses;
// pw is the recorded plugin (nil when the registry is not recorded).
func runPostFilter(ctx context.Context, fwk framework.Framework, pw *preemptionPlugin, state *framework.CycleState,
	pod *v1.Pod, schedErr error) postFilterOutcome {
	out := postFilterOutcome{reason: v1.PodReasonUnschedulable,
		json: &preemptionJSON{Victims: []victimJSON{}, PreemptionCandidates: []string{}, PreemptionTies: []string{}}}
	fitErr, isFit := schedErr.(*framework.FitError)
	switch {
	case isFit:
		if fwk.HasPostFilterPlugins() {
			if pw != nil {
				pw.reset()
			}
			result, st := fwk.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatusMap)
			if result != nil {
				out.nominating = result.NominatingInfo
			}
			code := st.Code().String()
			out.json.PostFilterCode, out.json.PostFilterMessage = &code, st.Message()
			if pw != nil {
				pw.obs.mu.Lock()
				pw.obs.rec.fill(out.json, result, st)
				pw.obs.mu.Unlock()
			}
		}
	case schedErr == scheduler.ErrNoNodesAvailable:
		out.nominating = clearNominatedNode
	default:
		out.nominating, out.reason = clearNominatedNode, scheduler.SchedulerError
	}
	out.json.setNominated(pod, out.nominating)
	return out
}

// setNominated sets NominatedNode to the pod's nominatedNodeName once updatePod has
// applied nominating (ModeOverride: its name; ModeNoop: the pod's own).
func (j *preemptionJSON) setNominated(pod *v1.Pod, nominating *framework.NominatingInfo) {
	name := pod.Status.NominatedNodeName
	if nominating.Mode() == framework.ModeOverride {
		name = nominating.NominatedNodeName
	}
	j.NominatedNode = nil
	if name != "" {
		j.NominatedNode = &name
	}
}

// fill copies the record of a PostFilter that returned result and st into j.
func (rec *preemptionRecord) fill(j *preemptionJSON, result *framework.PostFilterResult, st *framework.Status) {
	if rec.drew {
		off, num := rec.offset, rec.numCandidates
		j.PreemptionDraw, j.PreemptionOffset, j.PreemptionNumCandidates = true, &off, &num
	}
	chosen := ""
	if st.IsSuccess() && result != nil && result.NominatingInfo != nil {
		chosen = result.NominatedNodeName
	}
	switch {
	case rec.candidates != nil:
		j.PreemptionCandidates = rec.candidates
		j.PreemptionTies = preemptionTies(rec.victimsMap)
	case chosen != "":
		j.PreemptionCandidates = []string{chosen}
		j.PreemptionTies = []string{chosen}
	}
	if v := rec.victims[chosen]; chosen != "" && v != nil {
		for _, p := range v.Pods {
			j.Victims = append(j.Victims, victimJSON{Namespace: p.Namespace, Name: p.Name, Priority: corev1helpers.PodPriority(p)})
		}
		j.PDBViolations = v.NumPDBViolations
	}
}

// earliestStartTime is util.GetEarliestPodStartTime (the earliest start time of the
// victims of the highest priority, Pods[0]'s priority first) with a pod without
// status.startTime at +infinity: Go reads time.Now() for it at each call, later than
// any start time, and no two such readings are reproducible.
func earliestStartTime(v *extenderv1.Victims) (t time.Time, inf bool) {
	start := func(p *v1.Pod) (time.Time, bool) {
		if p.Status.StartTime == nil {
			return time.Time{}, true
		}
		return p.Status.StartTime.Time, false
	}
	t, inf = start(v.Pods[0])
	maxPriority := corev1helpers.PodPriority(v.Pods[0])
	for _, p := range v.Pods {
		pt, pinf := start(p)
		switch prio := corev1helpers.PodPriority(p); {
		case prio == maxPriority:
			if !pinf && (inf || pt.Before(t)) {
				t, inf = pt, false
			}
		case prio > maxPriority:
			maxPriority, t, inf = prio, pt, pinf
		}
	}
	return t, inf
}

// preemptionTies is the set of nodes of m that pickOneNodeForPreemption may return: its
// criteria in its order (fewest PDB violations; lowest priority of Pods[0]; smallest sum
// of priorities, each + 2^31; fewest victims; latest earliest start time of the
// highest-priority victims), all nodes that tie on all of them, sorted by name.
func preemptionTies(m map[string]*extenderv1.Victims) []string {
	nodes := make([]string, 0, len(m))
	for n := range m {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	// keep keeps the nodes whose key is minimal (by less).
	keep := func(less func(a, b string) bool) {
		best := nodes[0]
		for _, n := range nodes[1:] {
			if less(n, best) {
				best = n
			}
		}
		var out []string
		for _, n := range nodes {
			if !less(best, n) {
				out = append(out, n)
			}
		}
		nodes = out
	}
	keep(func(a, b string) bool { return m[a].NumPDBViolations < m[b].NumPDBViolations })
	keep(func(a, b string) bool {
		return corev1helpers.PodPriority(m[a].Pods[0]) < corev1helpers.PodPriority(m[b].Pods[0])
	})
	sum := func(n string) int64 {
		var s int64
		for _, p := range m[n].Pods {
			s += int64(corev1helpers.PodPriority(p)) + int64(math.MaxInt32+1)
		}
		return s
	}
	keep(func(a, b string) bool { return sum(a) < sum(b) })
	keep(func(a, b string) bool { return len(m[a].Pods) < len(m[b].Pods) })
	keep(func(a, b string) bool { // later start first
		ta, ia := earliestStartTime(m[a])
		tb, ib := earliestStartTime(m[b])
		return (ia && !ib) || (!ia && !ib && ta.After(tb))
	})
	return nodes
}

// recordFailure is recordSchedulingFailure after the error function: the nomination
// (the queue's AddNominatedPod is its nominator's), then the pod's status update through
// the clientset (scheduler.go's updatePod), then every pending informer event: the
// victims' deletions and the status updates (the pod's own, and those of the
// lower-priority pods whose nomination the preemption cleared), through the mode's hooks.
func (h *harness) recordFailure(podInfo *framework.PodInfo, msg string, pf postFilterOutcome) error {
	h.nominator.AddNominatedPod(podInfo, pf.nominating)
	// An error is logged by kube-scheduler and ignored (e.g. the pod is gone).
	_ = schedulerUpdatePod(h.client, podInfo.Pod, &v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: pf.reason, Message: msg,
	}, pf.nominating)
	return h.mirror.drain()
}
