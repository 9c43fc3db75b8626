package main

// goref replay: docs/queue.md. A cluster replayed over time on a simulated clock through
// kube-scheduler v1.23.6's real scheduling queue (internalqueue.NewPriorityQueue with a
// fake clock), the real scheduler cache and the real frameworks: pods arrive and leave,
// nodes come and go (an events file, JSON Lines with a "time" in seconds), and pods that
// fit nowhere wait in the queue's unschedulableQ / podBackoffQ until the queue's own
// moves (MoveAllToActiveOrBackoffQueue, AssignedPodAdded) and periodic flushes
// (flushBackoffQCompleted every 1 s, flushUnschedulableQLeftover every 30 s, called at
// those simulated times instead of PriorityQueue.Run's timers) bring them back.
//
// Nothing of the queue is re-implemented: goref calls its methods; the two unexported
// flushes and pkg/scheduler's unexported preCheckForNode are reached with go:linkname,
// and the emptiness of activeQ and podBackoffQ (which the loop of docs/queue.md asks
// and the queue does not export) is read by reflection (read only).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/internal/heap"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/internal/queue"
	testingclock "k8s.io/utils/clock/testing"
)

// The queue's periodic flushes, which PriorityQueue.Run calls from wait.Until every 1 s
// and every 30 s, and the PreEnqueueCheck that addNodeToCache (pkg/scheduler's
// eventhandlers.go) hands to MoveAllToActiveOrBackoffQueue with NodeAdd.

//go:linkname flushBackoffQCompleted k8s.io/kubernetes/pkg/scheduler/internal/queue.(*PriorityQueue).flushBackoffQCompleted
func flushBackoffQCompleted(p *internalqueue.PriorityQueue)

//go:linkname flushUnschedulableQLeftover k8s.io/kubernetes/pkg/scheduler/internal/queue.(*PriorityQueue).flushUnschedulableQLeftover
func flushUnschedulableQLeftover(p *internalqueue.PriorityQueue)

//go:linkname preCheckForNode k8s.io/kubernetes/pkg/scheduler.preCheckForNode
func preCheckForNode(nodeInfo *framework.NodeInfo) internalqueue.PreEnqueueCheck

// replayBase is what the fake clock reads at replay time 0.
var replayBase = time.Date(2022, time.January, 1, 0, 0, 0, 0, time.UTC)

const (
	backoffFlushPeriod  = int64(time.Second)      // PriorityQueue.Run: flushBackoffQCompleted
	leftoverFlushPeriod = int64(30 * time.Second) // PriorityQueue.Run: flushUnschedulableQLeftover
)

// replayEvent is one line of a replay events file: an events.go operation (without
// "schedule") and its time in nanoseconds.
type replayEvent struct {
	eventOp
	ns int64
}

// jsonNumber is the grammar of a JSON number (RFC 8259).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE]([+-]?[0-9]+))?$`)

// parseSeconds reads a JSON number of seconds as an exact decimal and returns it in
// nanoseconds: it must be a whole number of nanoseconds, >= 0, within int64.
func parseSeconds(s string) (int64, error) {
	m := jsonNumber.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if m[4] != "" {
		if e, err := strconv.Atoi(m[4]); err != nil || e > 400 || e < -400 {
			return 0, fmt.Errorf("%s: exponent out of range", s)
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if r.Sign() < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	r.Mul(r, big.NewRat(int64(time.Second), 1))
	if !r.IsInt() {
		return 0, fmt.Errorf("%s is not a whole number of nanoseconds", s)
	}
	n := r.Num()
	if !n.IsInt64() {
		return 0, fmt.Errorf("%s seconds is out of range", s)
	}
	return n.Int64(), nil
}

// formatSeconds writes ns nanoseconds as exact decimal seconds (no trailing zeros).
func formatSeconds(ns int64) string {
	s := strconv.FormatInt(ns/int64(time.Second), 10)
	if frac := ns % int64(time.Second); frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
	}
	return s
}

// readReplayEvents parses a replay events file: events.go's lines (schedule excluded),
// each with a "time" (a JSON number of seconds), non-decreasing.
func readReplayEvents(path string) ([]replayEvent, error) {
	var evs []replayEvent
	prev := int64(0)
	err := readEventLines(path, func(n int, line []byte) error {
		ev := replayEvent{eventOp: eventOp{line: n}}
		var t struct {
			Time json.RawMessage `json:"time"`
		}
		if err := json.Unmarshal(line, &ev.eventOp); err != nil {
			return fmt.Errorf("malformed JSON: %v", err)
		}
		if err := json.Unmarshal(line, &t); err != nil {
			return fmt.Errorf("malformed JSON: %v", err)
		}
		if ev.Op == "schedule" {
			return fmt.Errorf("unknown op %q (replay schedules by itself; want delete, addPod, addNode, removeNode, addCapacity, updateCapacity or deleteCapacity)", ev.Op)
		}
		if err := ev.check(); err != nil {
			return err
		}
		raw := string(bytes.TrimSpace(t.Time))
		if raw == "" || raw == "null" {
			return fmt.Errorf("no \"time\"")
		}
		if !jsonNumber.MatchString(raw) {
			return fmt.Errorf("\"time\" must be a number of seconds, not %s", raw)
		}
		var err error
		if ev.ns, err = parseSeconds(raw); err != nil {
			return fmt.Errorf("\"time\": %v", err)
		}
		if ev.ns < prev {
			return fmt.Errorf("\"time\" %s is before the previous line's %s", raw, formatSeconds(prev))
		}
		prev = ev.ns
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return evs, nil
}

// attemptJSON is one scheduling cycle of the output (docs/queue.md).
type attemptJSON struct {
	Time                 json.Number `json:"time"`
	TimeNs               int64       `json:"timeNs"`
	Pod                  string      `json:"pod"`
	Attempt              int         `json:"attempt"`
	Cycle                int64       `json:"cycle"`
	Host                 *string     `json:"host"`
	Error                *string     `json:"error"`
	FeasibleNodes        int         `json:"feasibleNodes"`
	EvaluatedNodes       int         `json:"evaluatedNodes"`
	UnschedulablePlugins []string    `json:"unschedulablePlugins"`
	TraceDraws           int64       `json:"traceDraws,omitempty"`
	// PostFilter's part of a failed attempt (--preemption)
	*preemptionJSON
	// VolumeBindings: what VolumeBinding's Reserve assumed for the pod bound
	VolumeBindings []volumeBindingJSON `json:"volumeBindings,omitempty"`
}

// replayResult is the whole output document.
type replayResult struct {
	Attempts []attemptJSON
	Pending  []string
	EndNs    int64
}

// replayProfile is one profile's framework and the simulate step over it.
type replayProfile struct {
	*profileFramework
	sim *simulator
}

// replayRun is the replay's state: the harness, the queue and the view of the cluster
// (a pending pod's value in pending is true when it is queued, when a profile handles it).
type replayRun struct {
	h        *harness
	in       *inputSet
	q        *internalqueue.PriorityQueue
	clock    *testingclock.FakeClock
	profiles map[string]*replayProfile // by schedulerName
	now      int64                     // ns since the start

	*clusterView
	uids map[types.UID]bool // UIDs of the pods of pods
}

// newReplayQueue is what pkg/scheduler's factory.go (Configurator.create) builds: the
// first profile's QueueSortFunc, the configuration's backoff durations, the frameworks'
// nominator and cluster event map; and the fake clock.
func newReplayQueue(h *harness, f informers.SharedInformerFactory, clock *testingclock.FakeClock) (*internalqueue.PriorityQueue, error) {
	if len(h.profiles[0].plain.ListPlugins().QueueSort.Enabled) == 0 {
		return nil, inputErrorf("the profile %q has no QueueSort plugin", h.profiles[0].name)
	}
	lessFn := h.profiles[0].plain.QueueSortFunc()
	return internalqueue.NewPriorityQueue(lessFn, f,
		internalqueue.WithClock(clock),
		internalqueue.WithPodInitialBackoffDuration(time.Duration(h.podInitialBackoffSeconds)*time.Second),
		internalqueue.WithPodMaxBackoffDuration(time.Duration(h.podMaxBackoffSeconds)*time.Second),
		internalqueue.WithPodNominator(h.nominator),
		internalqueue.WithClusterEventMap(h.eventMap),
	), nil
}

// newReplay builds the harness (every profile of --config) with the queue, and the
// replay state over the input. The caller closes r.h.
func newReplay(in *inputSet, opts scoreOptions, metricsDraw bool) (*replayRun, error) {
	r := &replayRun{
		in:       in,
		clock:    testingclock.NewFakeClock(replayBase),
		profiles: map[string]*replayProfile{},
		uids:     map[types.UID]bool{},
	}
	opts.AllProfiles = true
	opts.BeforeStart = func(h *harness, f informers.SharedInformerFactory) error {
		q, err := newReplayQueue(h, f, r.clock)
		r.q = q
		if err == nil {
			h.volumeEvents = registerVolumeEvents(h, f, func(evt framework.ClusterEvent) {
				q.MoveAllToActiveOrBackoffQueue(evt, nil)
			})
		}
		return err
	}
	h, err := newHarness(in, opts)
	if err != nil {
		return nil, err
	}
	r.h = h
	for _, pf := range h.profiles {
		h.fwk = pf.fwk
		r.profiles[pf.name] = &replayProfile{profileFramework: pf, sim: newSimulator(h, metricsDraw)}
	}
	r.use(r.profiles[h.profiles[0].name])
	r.clusterView = newClusterView(h.cache, in)
	for _, p := range in.BoundPods {
		r.uids[p.UID] = true
	}
	if h.mirror != nil {
		h.mirror.hooks = podHooks{deleted: r.victimDeleted, updated: r.pendingUpdated}
	}
	return r, nil
}

// victimDeleted is deletePodFromCache for a pod the scheduler deleted (a victim):
// cache.RemovePod, then MoveAllToActiveOrBackoffQueue with AssignedPodDelete.
func (r *replayRun) victimDeleted(p *v1.Pod) error {
	if p.Spec.NodeName == "" {
		return fmt.Errorf("goref: the scheduler deleted the pending pod %s", podKey(p))
	}
	if err := r.h.cache.RemovePod(p); err != nil {
		return fmt.Errorf("goref: deleting victim %s: cache.RemovePod: %v", podKey(p), err)
	}
	if _, _, _, err := r.takePod(podKey(p)); err != nil {
		return err
	}
	delete(r.uids, p.UID)
	r.tick()
	r.q.MoveAllToActiveOrBackoffQueue(internalqueue.AssignedPodDelete, nil)
	return nil
}

// pendingUpdated is updatePodInSchedulingQueue for a pending pod whose status the
// scheduler updated: an update that changes nothing is dropped (the fake clientset sets
// no resourceVersion: a change stands for a new one, and the API server writes nothing
// for a patch that changes nothing), as is one of an assumed pod; else queue.Update.
func (r *replayRun) pendingUpdated(old, p *v1.Pod) error {
	if p.Spec.NodeName != "" {
		return fmt.Errorf("goref: the scheduler updated the bound pod %s", podKey(p))
	}
	if apiequality.Semantic.DeepEqual(old, p) {
		return nil
	}
	if assumed, err := r.h.cache.IsAssumedPod(p); err != nil || assumed {
		return err
	}
	r.pods[podKey(p)] = p
	r.tick()
	return r.q.Update(old, p)
}

// use points the harness at a profile's framework for the next cycle.
func (r *replayRun) use(p *replayProfile) {
	r.h.fwk, r.h.plain, r.h.recs = p.fwk, p.plain, p.recs
}

// profileFor is the profile that handles pod (responsibleForPod), or nil. A pod without
// spec.schedulerName has the API server's default, default-scheduler.
func (r *replayRun) profileFor(pod *v1.Pod) *replayProfile {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = v1.DefaultSchedulerName
	}
	return r.profiles[name]
}

// tick sets the fake clock to the replay's now (before every queue call).
func (r *replayRun) tick() {
	r.clock.SetTime(replayBase.Add(time.Duration(r.now)))
}

// queueLen is the length of one of the queue's heaps (activeQ, podBackoffQ), read by
// reflection: the queue exports no such count.
func queueLen(q *internalqueue.PriorityQueue, field string) int {
	v := reflect.ValueOf(q).Elem().FieldByName(field)
	if v.Type() != reflect.TypeOf((*heap.Heap)(nil)) {
		panic(fmt.Sprintf("goref: PriorityQueue.%s is a %v, not a *heap.Heap", field, v.Type()))
	}
	return (*(**heap.Heap)(unsafe.Pointer(v.UnsafeAddr()))).Len()
}

// addPending records a new pending pod; one that a profile handles is queue.Add'ed at
// now, which takes 1 ns.
func (r *replayRun) addPending(p *v1.Pod) error {
	name := podKey(p)
	r.pods[name] = p
	r.uids[p.UID] = true
	r.pending[name] = false
	if r.profileFor(p) == nil {
		return nil // the scheduler's pod informer filter (responsibleForPod) drops it
	}
	r.pending[name] = true
	r.tick()
	if err := r.q.Add(p); err != nil {
		return fmt.Errorf("goref: queue.Add(%s): %v", name, err) // a new key cannot be in the queue
	}
	r.now++
	return nil
}

// run is the loop of docs/queue.md; it stops when nothing is left to do (or after
// until, when set) and returns the output document.
func (r *replayRun) run(ctx context.Context, events []replayEvent, until int64, hasUntil bool) (*replayResult, error) {
	res := &replayResult{Attempts: []attemptJSON{}}
	for _, p := range r.in.PendingPods {
		if err := r.addPending(p); err != nil {
			return nil, err
		}
	}
	var nextBackoffFlush, nextLeftoverFlush int64
	k := 0
	for {
		for k < len(events) && events[k].ns <= r.now {
			if err := r.apply(events[k]); err != nil {
				return nil, inputErrorf("--events: line %d (%s): %v", events[k].line, events[k].Op, err)
			}
			k++
		}
		if nextBackoffFlush <= r.now {
			r.tick()
			flushBackoffQCompleted(r.q)
			nextBackoffFlush += backoffFlushPeriod
		}
		if nextLeftoverFlush <= r.now {
			r.tick()
			flushUnschedulableQLeftover(r.q)
			nextLeftoverFlush += leftoverFlushPeriod
		}
		if queueLen(r.q, "activeQ") > 0 {
			a, err := r.cycle(ctx)
			if err != nil {
				return nil, err
			}
			res.Attempts = append(res.Attempts, a)
			r.now++
			continue
		}
		if k == len(events) && queueLen(r.q, "podBackoffQ") == 0 && !hasUntil {
			break
		}
		next := nextBackoffFlush
		if nextLeftoverFlush < next {
			next = nextLeftoverFlush
		}
		if k < len(events) && events[k].ns < next {
			next = events[k].ns
		}
		if hasUntil && next > until {
			break
		}
		r.now = next
	}
	res.Pending = []string{}
	for _, p := range r.q.PendingPods() {
		res.Pending = append(res.Pending, podKey(p))
	}
	sort.Strings(res.Pending)
	res.EndNs = r.now
	return res, nil
}

// cycle pops the head of activeQ and runs one scheduling cycle of it as scheduleOne
// does: simulate's step (Schedule, assume, Reserve, Permit) with the pod's profile, then
// the bind (cache.AddPod of the bound pod, which confirms the assumed one, and the
// informer's queue.AssignedPodAdded), or the failure handling of MakeDefaultErrorFunc.
func (r *replayRun) cycle(ctx context.Context) (attemptJSON, error) {
	r.tick()
	pInfo, err := r.q.Pop()
	if err != nil {
		return attemptJSON{}, err
	}
	pod := pInfo.Pod
	name := podKey(pod)
	prof := r.profileFor(pod)
	if prof == nil {
		return attemptJSON{}, fmt.Errorf("goref: popped %s, which no profile handles", name)
	}
	r.use(prof)
	res, err := prof.sim.step(ctx, pod)
	if err != nil {
		return attemptJSON{}, err
	}
	a := attemptJSON{
		Time: json.Number(formatSeconds(r.now)), TimeNs: r.now, Pod: name,
		Attempt: pInfo.Attempts, Cycle: r.q.SchedulingCycle(),
		Host: res.Host, Error: res.Error,
		FeasibleNodes: res.FeasibleNodes, EvaluatedNodes: res.EvaluatedNodes,
		UnschedulablePlugins: []string{}, TraceDraws: res.TraceDraws,
		preemptionJSON: res.preemptionJSON, VolumeBindings: res.VolumeBindings,
	}
	informerPod := r.pods[name]
	if res.Host != nil {
		bound := informerPod.DeepCopy()
		bound.Spec.NodeName = *res.Host
		if err := r.h.cache.AddPod(bound); err != nil {
			return a, fmt.Errorf("goref: binding %s: cache.AddPod: %v", name, err)
		}
		r.tick()
		r.q.AssignedPodAdded(bound)
		r.pods[name] = bound
		delete(r.pending, name)
		if r.h.mirror != nil {
			return a, r.h.mirror.bind(bound, *res.Host)
		}
		return a, nil
	}
	info := pInfo
	if res.scheduleErr == nil {
		// Schedule succeeded and assume, Reserve or Permit failed: scheduleOne hands
		// assumedPodInfo = podInfo.DeepCopy() to the error func, and QueuedPodInfo's
		// DeepCopy does not copy UnschedulablePlugins.
		info = pInfo.DeepCopy()
	} else if fitErr, ok := res.scheduleErr.(*framework.FitError); ok {
		info.UnschedulablePlugins = fitErr.Diagnosis.UnschedulablePlugins
	}
	// MakeDefaultErrorFunc: the pod as the informer has it, then back to the queue.
	info.PodInfo = framework.NewPodInfo(informerPod.DeepCopy())
	r.tick()
	if err := r.q.AddUnschedulableIfNotPresent(info, r.q.SchedulingCycle()); err != nil {
		return a, fmt.Errorf("goref: AddUnschedulableIfNotPresent(%s): %v", name, err)
	}
	a.UnschedulablePlugins = info.UnschedulablePlugins.List()
	if r.h.mirror != nil {
		// recordSchedulingFailure after the error function, with the pod it refreshed
		return a, r.h.recordFailure(info.PodInfo, *res.Error, res.postFilter)
	}
	return a, nil
}

// apply performs one event at now, as the scheduler's informer event handlers do
// (pkg/scheduler/eventhandlers.go).
func (r *replayRun) apply(ev replayEvent) error {
	switch ev.Op {
	case "addPod":
		return r.addPod(ev.Pod, ev.line)
	case "delete":
		return r.deletePod(ev.name())
	case "addNode":
		return r.addNode(ev.Node, ev.line)
	case "addCapacity", "updateCapacity", "deleteCapacity":
		return r.h.writeCapacity(context.Background(), ev.eventOp)
	default: // removeNode is deleteNodeFromCache: cache.RemoveNode, no queue move (v1.23)
		return r.removeNodeNamed(ev.name())
	}
}

// addPod: a pod validated as input is and created through the Priority admission
// plugin. With spec.nodeName, addPodToCache (cache.AddPod, queue.AssignedPodAdded);
// without, addPodToSchedulingQueue when a profile handles it. A Succeeded or Failed pod,
// or a pending pod being deleted, changes nothing (the loader skips them too).
func (r *replayRun) addPod(raw json.RawMessage, line int) error {
	pa, err := r.decodeNewPod(raw, line)
	if pa == nil {
		return err
	}
	p := pa.pod
	if r.uids[p.UID] {
		return fmt.Errorf("pod %s: metadata.uid %q is used by another pod", podKey(p), p.UID)
	}
	_, refused, err := admitPods([]podAt{*pa}, r.in.PriorityClasses)
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return fmt.Errorf("refused by the Priority admission plugin: %s", refused[0])
	}
	if m := r.h.mirror; m != nil && (p.Spec.NodeName != "" || p.DeletionTimestamp == nil) {
		if err := m.create(p); err != nil {
			return err
		}
	}
	switch {
	case p.Spec.NodeName != "":
		if err := r.addBoundPod(p); err != nil {
			return err
		}
		r.uids[p.UID] = true
		r.tick()
		r.q.AssignedPodAdded(p)
	case p.DeletionTimestamp != nil:
		return nil
	default:
		if err := r.addPending(p); err != nil {
			return err
		}
	}
	// the ephemeral volume controller's claims, after the pod's event (ephemeral.go)
	return r.h.createEphemeralClaims(context.Background(), p)
}

// deletePod: a bound pod (of the input, of an addPod, or bound by a cycle) is
// deletePodFromCache (cache.RemovePod, then MoveAllToActiveOrBackoffQueue with
// AssignedPodDelete); a pending pod is deletePodFromSchedulingQueue (queue.Delete).
func (r *replayRun) deletePod(name string) error {
	p, pending, queued, err := r.takePod(name)
	if err != nil {
		return err
	}
	delete(r.uids, p.UID)
	if m := r.h.mirror; m != nil {
		if err := m.remove(p); err != nil {
			return err
		}
	}
	if pending {
		if queued {
			r.tick()
			return r.q.Delete(p)
		}
		return nil
	}
	if err := r.removeBoundPod(p); err != nil {
		return err
	}
	r.tick()
	r.q.MoveAllToActiveOrBackoffQueue(internalqueue.AssignedPodDelete, nil)
	return nil
}

// addNode is addNodeToCache: cache.AddNode, then MoveAllToActiveOrBackoffQueue with
// NodeAdd and preCheckForNode of the NodeInfo the cache returned.
func (r *replayRun) addNode(raw json.RawMessage, line int) error {
	info, err := r.addNodeJSON(raw, line)
	if err != nil {
		return err
	}
	r.tick()
	r.q.MoveAllToActiveOrBackoffQueue(internalqueue.NodeAdd, preCheckForNode(info))
	return nil
}

// writeReplay writes the document of docs/queue.md, one attempt per line.
func writeReplay(w io.Writer, res *replayResult) error {
	out := bufio.NewWriter(w)
	fmt.Fprint(out, `{"attempts": [`)
	for i, a := range res.Attempts {
		line, err := json.Marshal(a)
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		fmt.Fprintf(out, "%s%s", sep, line)
	}
	if len(res.Attempts) > 0 {
		fmt.Fprint(out, "\n")
	}
	pending, err := json.Marshal(res.Pending)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "],\n \"pending\": %s,\n \"endNs\": %d}\n", pending, res.EndNs)
	return out.Flush()
}

func replayMain(args []string) error {
	metricsDraw, timing, events, untilArg, preempt := false, false, "", "", false
	f, in, err := simulationInputs(args,
		map[string]*bool{pluginMetricsDraw: &metricsDraw, "--timing": &timing, "--preemption": &preempt}, nil,
		map[string]*string{"--events": &events, "--until": &untilArg})
	if err != nil {
		return err
	}
	if events == "" {
		return usageErrorf("replay needs --events FILE")
	}
	var until int64
	if untilArg != "" {
		if until, err = parseSeconds(untilArg); err != nil {
			return usageErrorf("--until: %v", err)
		}
	}
	evs, err := readReplayEvents(events)
	if err != nil {
		return err
	}
	r, err := newReplay(in, f.opts, metricsDraw)
	if err != nil {
		return err
	}
	defer r.h.close()
	start := time.Now()
	res, err := r.run(context.Background(), evs, until, untilArg != "")
	if err != nil {
		return err
	}
	if timing {
		// the replay loop alone (events applied, flushes, cycles), for benchmarks
		fmt.Fprintf(os.Stderr, "goref-timing: {\"loopNs\": %d, \"attempts\": %d}\n",
			time.Since(start).Nanoseconds(), len(res.Attempts))
	}
	if err := writeOutput(f.output, func(w io.Writer) error { return writeReplay(w, res) }); err != nil {
		return err
	}
	slow, first := 0, ""
	for _, a := range res.Attempts {
		if a.TraceDraws > 0 {
			if slow == 0 {
				first = a.Pod
			}
			slow++
		}
	}
	if slow > 0 && !f.quiet {
		fmt.Fprintf(os.Stderr, "goref: warning: %d scheduling cycles took 100 ms or more and drew "+
			"rand.Int31() for their trace log (first: %s): the tie-breaks after it depend on timing\n",
			slow, first)
	}
	return nil
}
