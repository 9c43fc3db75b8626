package main

// goref bench-preemption: the shape of scheduler_perf's preemption benchmark of v1.23
// (test/integration/scheduler_perf/config/performance-config.yaml, "Preemption", named
// PreemptionBasic later): nodes of config/node-default.yaml (4 CPU, 32Gi, 110 pods),
// init pods of config/pod-low-priority.yaml (priority 0, 900m CPU and 500Mi requested,
// terminationGracePeriodSeconds 0) bound 4 to a node (init pod i on node i mod N, as the
// scheduler spreads them), and preemptors of config/pod-high-priority.yaml (priority 10,
// 3 CPU): none fits anywhere, each evicts 3 init pods. Workload 500Nodes: 500 nodes,
// 2000 init pods, 500 preemptors (the defaults); 5000Nodes: 5000, 20000, 5000.
//
// Timed, per preemptor, in queue order, the real scheduler's full path through the plain
// in-tree registry (no recording) with the v1beta3 default profile: Schedule fails,
// RunPostFilterPlugins (DefaultPreemption evicts the victims through the fake clientset),
// recordSchedulingFailure (the nomination, the status update), the informer events
// applied (the victims leave the cache), then the immediate retry: Schedule on the
// nominated node, assume, Reserve, Permit, bind. That is `goref simulate --preemption
// --retry-nominated` on the objects --dump writes, timed.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type benchPreemptionResult struct {
	Benchmark          string    `json:"benchmark"`
	GoVersion          string    `json:"goVersion"`
	Gomaxprocs         int       `json:"gomaxprocs"`
	Nodes              int       `json:"nodes"`
	InitPods           int       `json:"initPods"`
	Preemptors         int       `json:"preemptors"`
	Config             string    `json:"config"`
	Seed               int64     `json:"seed"`
	Runs               []float64 `json:"runsUsPerPreemptor"`
	UsPerPreemptor     float64   `json:"usPerPreemptor"` // best run
	Nominated          int       `json:"nominated"`      // preemptors whose PostFilter nominated a node
	Bound              int       `json:"bound"`          // preemptors placed (first try or retry)
	Victims            int       `json:"victims"`        // pods evicted
	CyclesPerPreemptor float64   `json:"cyclesPerPreemptor"`
}

// preemptionShape writes the benchmark's objects as one kubectl-style JSON List.
func preemptionShape(path string, nodes, initPods, preemptors int) error {
	type obj = map[string]interface{}
	quantities := func(cpu string) obj {
		return obj{"cpu": cpu, "memory": "500Mi"}
	}
	container := func(cpu string) []obj {
		return []obj{{"image": "k8s.gcr.io/pause:3.6", "name": "pause", "ports": []obj{{"containerPort": 80}},
			"resources": obj{"limits": quantities(cpu), "requests": quantities(cpu)}}}
	}
	capacity := obj{"pods": "110", "cpu": "4", "memory": "32Gi"}
	var items []obj
	for i := 0; i < nodes; i++ {
		items = append(items, obj{"apiVersion": "v1", "kind": "Node",
			"metadata": obj{"name": fmt.Sprintf("scheduler-perf-%05d", i)}, "spec": obj{},
			"status": obj{"capacity": capacity, "allocatable": capacity, "phase": "Running",
				"conditions": []obj{{"status": "True", "type": "Ready"}}}})
	}
	for i := 0; i < initPods; i++ {
		items = append(items, obj{"apiVersion": "v1", "kind": "Pod",
			"metadata": obj{"name": fmt.Sprintf("pod-low-%05d", i), "namespace": "default"},
			"spec": obj{"nodeName": fmt.Sprintf("scheduler-perf-%05d", i%nodes), "terminationGracePeriodSeconds": 0,
				"containers": container("900m")}})
	}
	for i := 0; i < preemptors; i++ {
		items = append(items, obj{"apiVersion": "v1", "kind": "Pod",
			"metadata": obj{"name": fmt.Sprintf("pod-high-%05d", i), "namespace": "default"},
			"spec":     obj{"priority": 10, "containers": container("3000m")}})
	}
	data, err := json.Marshal(obj{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		return err
	}
	return writeOutput(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

func benchPreemptionMain(args []string) error {
	nodes, initPods, preemptors, runs := 500, 2000, 500, 1
	asJSON, dump, cfg, seedArg := false, "", "", "0"
	args, err := takeFlags(args, map[string]*bool{"--json": &asJSON},
		map[string]*int{"--nodes": &nodes, "--init-pods": &initPods, "--preemptors": &preemptors, "--runs": &runs},
		map[string]*string{"--dump": &dump, "--config": &cfg, "--seed": &seedArg})
	if err != nil {
		return err
	}
	seed, err := strconv.ParseInt(seedArg, 10, 64)
	if err != nil {
		return usageErrorf("--seed: not an integer: %q", seedArg)
	}
	if len(args) != 0 {
		return usageErrorf("bench-preemption: unknown argument %q", strings.Join(args, " "))
	}
	if dump != "" {
		return preemptionShape(dump, nodes, initPods, preemptors)
	}
	dir, err := os.MkdirTemp("", "goref-preemption-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shape.json")
	if err := preemptionShape(path, nodes, initPods, preemptors); err != nil {
		return err
	}
	in, err := loadInputs([]string{path})
	if err != nil {
		return err
	}
	res := benchPreemptionResult{Benchmark: "Preemption", GoVersion: runtime.Version(), Gomaxprocs: runtime.GOMAXPROCS(0),
		Nodes: nodes, InitPods: initPods, Preemptors: preemptors, Config: cfg, Seed: seed}
	if cfg == "" {
		res.Config = "v1beta3 default"
	}
	opts := scoreOptions{ConfigFile: cfg, DefaultProfile: cfg == "", Plain: true, Preemption: true, Seed: seed}
	for run := 0; run < runs; run++ {
		us, err := benchPreemptionRun(in, opts, &res)
		if err != nil {
			return err
		}
		res.Runs = append(res.Runs, us)
		if run == 0 || us < res.UsPerPreemptor {
			res.UsPerPreemptor = us
		}
	}
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	fmt.Printf("Preemption %d nodes, %d init pods, %d preemptors: %.1f µs per preemptor (best of %d; %.2f cycles each), %d nominated, %d bound, %d victims\n",
		nodes, initPods, preemptors, res.UsPerPreemptor, runs, res.CyclesPerPreemptor, res.Nominated, res.Bound, res.Victims)
	return nil
}

// benchPreemptionRun builds a harness (not timed) and times every preemptor's cycles; it
// returns µs per preemptor and fills the counts of res.
func benchPreemptionRun(in *inputSet, opts scoreOptions, res *benchPreemptionResult) (float64, error) {
	h, err := newHarness(in, opts)
	if err != nil {
		return 0, err
	}
	defer h.close()
	sim := newSimulator(h, false)
	sim.enablePreemption(in.PendingPods, true)
	victims := 0
	sim.onDeleted = func(*v1.Pod) { victims++ }
	pods, err := queueOrder(h.plain, in.PendingPods)
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	nominated, bound, cycles := 0, 0, 0
	start := time.Now()
	for _, pod := range pods {
		for try := 0; try < 2; try++ {
			pod = sim.current(pod)
			cycles++
			state := framework.NewCycleState()
			sr, err := h.alg.Schedule(ctx, nil, h.plain, state, pod)
			if err != nil {
				pf := runPostFilter(ctx, h.plain, nil, state, pod, err)
				if err := h.recordFailure(framework.NewPodInfo(pod), err.Error(), pf); err != nil {
					return 0, err
				}
				if pf.json.PostFilterCode == nil || *pf.json.PostFilterCode != framework.Success.String() {
					break
				}
				nominated++
				continue
			}
			if err := assumeOnHost(ctx, h.plain, h.cache, h.nominator, state, pod, sr.SuggestedHost); err != nil {
				pf := runPostFilter(ctx, h.plain, nil, nil, pod, err)
				if err := h.recordFailure(framework.NewPodInfo(pod), err.Error(), pf); err != nil {
					return 0, err
				}
				break
			}
			if err := h.mirror.bind(pod, sr.SuggestedHost); err != nil {
				return 0, err
			}
			bound++
			break
		}
	}
	elapsed := time.Since(start)
	n := len(pods)
	if n == 0 {
		n = 1
	}
	res.Nominated, res.Bound, res.Victims = nominated, bound, victims
	res.CyclesPerPreemptor = float64(cycles) / float64(n)
	return float64(elapsed.Nanoseconds()) / 1e3 / float64(n), nil
}
