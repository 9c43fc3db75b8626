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
// binding: assume, Reserve, Permit. A Permit "Wait" counts as success (no in-tree plugin
// waits). On failure the pod is unreserved and forgotten and the error returned.
func assumeOnHost(ctx context.Context, fwk framework.Framework, cache internalcache.Cache, state *framework.CycleState, pod *v1.Pod, host string) error {
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	if err := cache.AssumePod(assumed); err != nil {
		return err
	}
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
}

func newSimulator(h *harness, metricsDraw bool) *simulator {
	c := &stateCapture{Framework: h.fwk.Framework}
	h.fwk.Framework = c
	return &simulator{h: h, capture: c, metricsDraw: metricsDraw}
}

// step schedules pod against the current cache and assumes it on its host. A pod that
// fits nowhere changes nothing (no preemption, no retry); one whose Reserve or Permit
// fails gets host null and that error.
func (s *simulator) step(ctx context.Context, pod *v1.Pod) (resultJSON, error) {
	if s.metricsDraw {
		rand.Intn(100)
	}
	s.capture.state = nil
	r, err := s.h.schedule(ctx, pod)
	if err != nil || r.Host == nil {
		return r, err
	}
	if s.capture.state == nil {
		return r, fmt.Errorf("goref: Schedule placed %s without running PreFilter", r.Pod)
	}
	if err := assumeOnHost(ctx, s.h.fwk, s.h.cache, s.capture.state, pod, *r.Host); err != nil {
		msg := err.Error()
		r.Host, r.Error = nil, &msg
	}
	return r, nil
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
	metricsDraw, events := false, ""
	f, in, err := simulationInputs(args, map[string]*bool{pluginMetricsDraw: &metricsDraw}, nil,
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
			r, err := sim.step(ctx, pod)
			if err != nil {
				return err
			}
			if err := yield(r); err != nil {
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
			if err == nil && assumeOnHost(ctx, h.plain, h.cache, state, pod, sr.SuggestedHost) == nil {
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
