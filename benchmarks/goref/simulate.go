package main

// goref simulate: sequential mode. The pending pods are taken in the scheduling queue's
// order (the profile's QueueSort plugin, PrioritySort: higher spec.priority first, then the
// time the pod entered the queue, here its input position) and each goes through one
// genericScheduler.Schedule against the current cache, as in `goref score`; a pod that
// fits is then handled as scheduler.go's scheduleOne handles it before binding: a deep
// copy with spec.nodeName = host is AssumePod'ed in the real scheduler cache, then the
// framework's Reserve and Permit plugins run with the cycle's state (a failure unreserves
// and forgets the pod, as scheduleOne does). The next cycle's snapshot
// (cache.UpdateSnapshot inside Schedule) therefore holds every pod placed so far.
//
// goref simbench: the same sequence through the plain in-tree registry, timed per pod.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/internal/cache"
)

// pluginMetricsDraw is the flag that makes each cycle draw scheduleOne's
// rand.Intn(100) (the plugin-metrics sample) before Schedule.
const pluginMetricsDraw = "--plugin-metrics-draw"

// queueOrder sorts pods as the scheduling queue pops them when all of them were added
// before the first pop, one after another in input order: by the profile's queue-sort
// LessFunc over QueuedPodInfos whose Timestamps increase with the input position
// (kube-scheduler stamps each pod with time.Now() as it is added; equal stamps would
// leave the heap's order to chance, so input order stands in for it).
func queueOrder(fwk framework.Framework, pods []*v1.Pod) ([]*v1.Pod, error) {
	less := fwk.QueueSortFunc()
	if less == nil {
		return nil, fmt.Errorf("the profile has no QueueSort plugin")
	}
	infos := make([]*framework.QueuedPodInfo, len(pods))
	for i, p := range pods {
		infos[i] = &framework.QueuedPodInfo{PodInfo: framework.NewPodInfo(p), Timestamp: time.Unix(0, int64(i))}
	}
	sort.SliceStable(infos, func(a, b int) bool { return less(infos[a], infos[b]) })
	out := make([]*v1.Pod, len(pods))
	for i, info := range infos {
		out[i] = info.Pod
	}
	return out, nil
}

// assumeOnHost is what scheduleOne does after Schedule succeeded, up to the (asynchronous)
// binding: assume (AssumePod, then the pod leaves the nominator, as sched.assume does),
// Reserve, Permit. A Permit "Wait" counts as success (no in-tree plugin waits). On failure
// the pod is unreserved and forgotten and the error returned.
func assumeOnHost(ctx context.Context, fwk framework.Framework, cache internalcache.Cache, nominator framework.PodNominator,
	state *framework.CycleState, pod *v1.Pod, host string) error {
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	if err := cache.AssumePod(assumed); err != nil {
		return err
	}
	nominator.DeleteNominatedPodIfExists(assumed)
	st := fwk.RunReservePluginsReserve(ctx, state, assumed, host)
	if st.IsSuccess() {
		st = fwk.RunPermitPlugins(ctx, state, assumed, host)
		if st.IsSuccess() || st.Code() == framework.Wait {
			return nil
		}
	}
	fwk.RunReservePluginsUnreserve(ctx, state, assumed, host)
	if err := cache.ForgetPod(assumed); err != nil {
		return fmt.Errorf("%v; ForgetPod: %v", st.AsError(), err)
	}
	return st.AsError()
}

// stateCapture sits under the recording framework and keeps the CycleState that
// Schedule creates (findNodesThatFitPod always starts with RunPreFilterPlugins), so that
// Reserve and Permit see the PreFilter state of the same cycle.
type stateCapture struct {
	framework.Framework
	state *framework.CycleState
}

func (c *stateCapture) RunPreFilterPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod) *framework.Status {
	c.state = state
	return c.Framework.RunPreFilterPlugins(ctx, state, pod)
}

type simulator struct {
	h           *harness
	capture     *stateCapture
	metricsDraw bool

	// With --preemption (h.mirror set): the pending pods as the pod informer has them
	// after the scheduler's status updates, by UID; retry is --retry-nominated;
	// onDeleted (--events) follows a victim's deletion.
	latest    map[types.UID]*v1.Pod
	retry     bool
	onDeleted func(p *v1.Pod)
}

func newSimulator(h *harness, metricsDraw bool) *simulator {
	c := &stateCapture{Framework: h.fwk.Framework}
	h.fwk.Framework = c
	return &simulator{h: h, capture: c, metricsDraw: metricsDraw}
}

// step schedules pod against the current cache and assumes it on its host. Without
// --preemption a pod that fits nowhere changes nothing (no preemption, no retry); with
// it, a FitError runs the profile's PostFilter plugins (preemption.go), whose evictions
// settle applies. A pod whose Reserve or Permit fails gets host null and that error.
func (s *simulator) step(ctx context.Context, pod *v1.Pod) (resultJSON, error) {
	if s.metricsDraw {
		rand.Intn(100)
	}
	s.capture.state = nil
	r, err := s.h.schedule(ctx, pod)
	if err != nil {
		return r, err
	}
	if r.Host == nil {
		if s.h.mirror != nil {
			r.postFilter = runPostFilter(ctx, s.h.fwk, s.h.recs.preemption, s.h.state, pod, r.scheduleErr)
			r.preemptionJSON = r.postFilter.json
		}
		return r, nil
	}
	if s.capture.state == nil {
		return r, fmt.Errorf("goref: Schedule placed %s without running PreFilter", r.Pod)
	}
	err = assumeOnHost(ctx, s.h.fwk, s.h.cache, s.h.nominator, s.capture.state, pod, *r.Host)
	if reserved := s.h.binders.take(podKey(pod)); err == nil {
		r.VolumeBindings = reserved
		if len(reserved) > 0 {
			// PreBind's BindPodVolumes, the PV controller, the external provisioners
			if err := s.h.completeBindings(ctx, pod, *r.Host, reserved); err != nil {
				return r, err
			}
		}
	}
	if err != nil {
		msg := err.Error()
		r.Host, r.Error = nil, &msg
		if s.h.mirror != nil {
			// scheduleOne: recordSchedulingFailure with SchedulerError, clearNominatedNode
			r.postFilter = runPostFilter(ctx, s.h.fwk, nil, nil, pod, err)
			r.preemptionJSON = r.postFilter.json
		}
	}
	return r, nil
}

// enablePreemption prepares sequential mode for --preemption: the pending pods are
// nominated as the queue's Add nominates them (their own status.nominatedNodeName), in
// input order; the scheduler's pod writes come back as pkg/scheduler/eventhandlers.go
// handles them: a deleted victim leaves the cache (deletePodFromCache), a pending pod's
// status update reaches the nominator as the queue's Update hands it over.
func (s *simulator) enablePreemption(pending []*v1.Pod, retry bool) {
	s.latest, s.retry = map[types.UID]*v1.Pod{}, retry
	for _, p := range pending {
		s.h.nominator.AddNominatedPod(framework.NewPodInfo(p), nil)
	}
	s.h.mirror.hooks = podHooks{
		deleted: func(p *v1.Pod) error {
			if p.Spec.NodeName == "" {
				return fmt.Errorf("goref: the scheduler deleted the pending pod %s", podKey(p))
			}
			if err := s.h.cache.RemovePod(p); err != nil {
				return fmt.Errorf("goref: deleting victim %s: cache.RemovePod: %v", podKey(p), err)
			}
			if s.onDeleted != nil {
				s.onDeleted(p)
			}
			return nil
		},
		updated: func(old, p *v1.Pod) error {
			if p.Spec.NodeName != "" {
				return fmt.Errorf("goref: the scheduler updated the bound pod %s", podKey(p))
			}
			s.h.nominator.UpdateNominatedPod(old, framework.NewPodInfo(p))
			s.latest[p.UID] = p
			return nil
		},
	}
}

// current is pod as the pod informer has it (with --preemption), else pod.
func (s *simulator) current(pod *v1.Pod) *v1.Pod {
	if p, ok := s.latest[pod.UID]; ok {
		return p
	}
	return pod
}

// settle follows a step with --preemption: a pod placed is bound in the clientset; a
// failure is recorded (recordSchedulingFailure: the nomination, the status update, and
// the scheduler's pod events, the victims' deletions among them).
func (s *simulator) settle(pod *v1.Pod, r *resultJSON) error {
	if s.h.mirror == nil {
		return nil
	}
	if r.Host != nil {
		delete(s.latest, pod.UID)
		return s.h.mirror.bind(pod, *r.Host)
	}
	return s.h.recordFailure(framework.NewPodInfo(pod), *r.Error, r.postFilter)
}

// attempt is one scheduling attempt of pod in sequential mode: step and settle, each
// result to yield. With --retry-nominated, a pod whose PostFilter preempted is tried
// once more at once (its victims gone, its nominatedNodeName set), result "retry": true.
func (s *simulator) attempt(ctx context.Context, pod *v1.Pod, yield func(resultJSON) error) (placed bool, err error) {
	for try := 0; ; try++ {
		pod = s.current(pod)
		r, err := s.step(ctx, pod)
		if err != nil {
			return false, err
		}
		if err := s.settle(pod, &r); err != nil {
			return false, err
		}
		r.Retry = try > 0
		if err := yield(r); err != nil {
			return false, err
		}
		if r.Host != nil {
			return true, nil
		}
		if !s.retry || try > 0 || r.preemptionJSON == nil || r.PostFilterCode == nil || *r.PostFilterCode != framework.Success.String() {
			return false, nil
		}
	}
}

// takeFlags removes the boolean flags of bools and the valued flags of ints and strs
// ("--f V" or "--f=V"; ints want a positive integer, strs a non-empty value) from args
// and returns the rest.
func takeFlags(args []string, bools map[string]*bool, ints map[string]*int, strs map[string]*string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), nil
		}
		if p, ok := bools[a]; ok {
			*p = true
			continue
		}
		name, v, inline := a, "", false
		for j := 0; j < len(a); j++ {
			if a[j] == '=' {
				name, v, inline = a[:j], a[j+1:], true
				break
			}
		}
		p, isInt := ints[name]
		ps, isStr := strs[name]
		if !isInt && !isStr {
			rest = append(rest, a)
			continue
		}
		if !inline {
			if i+1 >= len(args) {
				return nil, usageErrorf("%s needs a value", name)
			}
			i++
			v = args[i]
		}
		if isStr {
			if v == "" {
				return nil, usageErrorf("%s needs a value", name)
			}
			*ps = v
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, usageErrorf("%s %q: want a positive integer", name, v)
		}
		*p = n
	}
	return rest, nil
}

// trimScores applies --scores none|top:K to one result (goref score's rule: total
// descending, ties in list order).
func trimScores(r *resultJSON, scores string, topK int) {
	if scores == "none" {
		r.Scores = []nodeScoreJSON{}
	} else if scores == "top" {
		sort.SliceStable(r.Scores, func(a, b int) bool { return r.Scores[a].Total > r.Scores[b].Total })
		if len(r.Scores) > topK {
			r.Scores = r.Scores[:topK]
		}
	}
}

// simulationInputs takes the flags of bools and ints out of args, parses the rest as
// `goref score` does and loads the inputs (printing the warning line unless --quiet).
func simulationInputs(args []string, bools map[string]*bool, ints map[string]*int, strs map[string]*string) (*scoreFlags, *inputSet, error) {
	args, err := takeFlags(args, bools, ints, strs)
	if err != nil {
		return nil, nil, err
	}
	f, err := parseScoreFlags(args)
	if err != nil {
		return nil, nil, err
	}
	if f.opts.Explain {
		return nil, nil, usageErrorf("--explain is a flag of goref score")
	}
	// --preemption and the flags that need it (simulate, replay)
	if p, ok := bools["--preemption"]; ok {
		f.opts.Preemption = *p
		if retry := bools["--retry-nominated"]; retry != nil && *retry && !*p {
			return nil, nil, usageErrorf("--retry-nominated needs --preemption")
		}
		if f.opts.PreemptionTies != "" && !*p {
			return nil, nil, usageErrorf("--preemption-ties needs --preemption")
		}
	} else if f.opts.PreemptionTies != "" {
		return nil, nil, usageErrorf("--preemption-ties needs --preemption")
	}
	in, err := loadInputs(f.paths)
	if err != nil {
		return nil, nil, err
	}
	if w := in.warningLine("goref"); w != "" && !f.quiet {
		fmt.Fprintln(os.Stderr, w)
	}
	return f, in, nil
}

func simulateMain(args []string) error {
	metricsDraw, events, preempt, retry := false, "", false, false
	f, in, err := simulationInputs(args,
		map[string]*bool{pluginMetricsDraw: &metricsDraw, "--preemption": &preempt, "--retry-nominated": &retry}, nil,
		map[string]*string{"--events": &events})
	if err != nil {
		return err
	}
	var ops []eventOp
	if events != "" {
		if ops, err = readEvents(events); err != nil {
			return err
		}
	}
	h, err := newHarness(in, f.opts)
	if err != nil {
		return err
	}
	defer h.close()
	sim := newSimulator(h, metricsDraw)
	if preempt {
		sim.enablePreemption(in.PendingPods, retry)
	}
	ctx := context.Background()
	run := func(yield func(resultJSON) error) error {
		if events != "" {
			return newEventRun(sim, in).apply(ctx, ops, yield)
		}
		pods, err := queueOrder(h.plain, in.PendingPods)
		if err != nil {
			return err
		}
		for _, pod := range pods {
			if _, err := sim.attempt(ctx, pod, yield); err != nil {
				return err
			}
		}
		return nil
	}
	return writeOutput(f.output, func(w io.Writer) error { return writeResults(w, f, run) })
}

// writeResults writes the document {"results": [...]}, one line per result that run
// yields (its scores trimmed as --scores says).
func writeResults(w io.Writer, f *scoreFlags, run func(yield func(resultJSON) error) error) error {
	out := bufio.NewWriterSize(w, 1<<20)
	sep := "\n"
	fmt.Fprint(out, `{"results": [`)
	slow, first := 0, ""
	err := run(func(r resultJSON) error {
		if r.TraceDraws > 0 {
			if slow == 0 {
				first = r.Pod
			}
			slow++
		}
		trimScores(&r, f.scores, f.topK)
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s%s", sep, line)
		sep = ",\n"
		return nil
	})
	if err != nil {
		return err
	}
	if sep != "\n" {
		fmt.Fprint(out, "\n")
	}
	fmt.Fprint(out, "]}\n")
	if slow > 0 && !f.quiet {
		fmt.Fprintf(os.Stderr, "goref: warning: %d scheduling cycles took 100 ms or more and drew "+
			"rand.Int31() for their trace log (first: %s): the tie-breaks after it depend on timing\n",
			slow, first)
	}
	return out.Flush()
}

type simbenchResult struct {
	schedbenchResult
	Mode        string `json:"mode"`
	Seed        int64  `json:"seed"`
	MetricsDraw bool   `json:"pluginMetricsDraw"`
}

// addRun records one timed run of pods pods, scheduled of which were placed.
func (res *schedbenchResult) addRun(elapsed time.Duration, pods, scheduled int) {
	if pods == 0 {
		pods = 1
	}
	per := float64(elapsed.Nanoseconds()) / float64(pods)
	if len(res.Runs) == 0 || per < res.MinNsPerPod {
		res.MinNsPerPod = per
	}
	res.Runs = append(res.Runs, per)
	res.Scheduled = scheduled
}

// simbenchMain times simulate's sequence (Schedule, then assume/Reserve/Permit for each
// pod that fits) through the plain in-tree registry: one run = a fresh harness (not timed)
// and the whole sequence, timed from the first pod to the last.
func simbenchMain(args []string) error {
	runs, asJSON, metricsDraw := 3, false, false
	f, in, err := simulationInputs(args,
		map[string]*bool{"--json": &asJSON, pluginMetricsDraw: &metricsDraw},
		map[string]*int{"--runs": &runs}, nil)
	if err != nil {
		return err
	}
	opts := f.opts
	opts.Plain = true
	res := simbenchResult{Mode: "sequential", Seed: opts.Seed, MetricsDraw: metricsDraw}
	res.GoVersion, res.Gomaxprocs, res.ConfigFile = runtime.Version(), runtime.GOMAXPROCS(0), opts.ConfigFile
	res.Nodes, res.Pods = len(in.Nodes), len(in.PendingPods)
	if opts.PercentageSet {
		res.Percentage = &opts.Percentage
	}
	ctx := context.Background()
	for run := 0; run < runs; run++ {
		h, err := newHarness(in, opts)
		if err != nil {
			return err
		}
		pods, err := queueOrder(h.plain, in.PendingPods)
		if err != nil {
			h.close()
			return err
		}
		scheduled := 0
		start := time.Now()
		for _, pod := range pods {
			if metricsDraw {
				rand.Intn(100)
			}
			state := framework.NewCycleState()
			sr, err := h.alg.Schedule(ctx, nil, h.plain, state, pod)
			if err == nil && assumeOnHost(ctx, h.plain, h.cache, h.nominator, state, pod, sr.SuggestedHost) == nil {
				scheduled++
			}
		}
		res.addRun(time.Since(start), len(pods), scheduled)
		h.close()
	}
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	fmt.Printf("%d pods on %d nodes, sequential: %.1f µs per pod (best of %d; %.0f pods/s), %d scheduled\n",
		res.Pods, res.Nodes, res.MinNsPerPod/1e3, runs, 1e9/res.MinNsPerPod, res.Scheduled)
	return nil
}
