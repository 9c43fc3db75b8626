package main

// goref bench: BenchmarkTestSelectorSpreadPriority of
// pkg/scheduler/framework/plugins/selectorspread/selector_spread_perf_test.go (v1.23),
// run as a timed loop in a normal binary. Setup and the timed op are the benchmark's:
// st.MakeNodesAndPodsForEvenPodsSpread, cache.NewSnapshot, a fake clientset with one
// Service selecting foo="", a started and synced informer factory, selectorspread.New
// on a profile-less framework; one op = PreScore + parallel Score over all nodes
// (parallelize.NewParallelizer(16).Until) + NormalizeScore.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/parallelize"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/selectorspread"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	internalcache "k8s.io/kubernetes/pkg/scheduler/internal/cache"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

type benchShape struct {
	Nodes int
	Pods  int
}

type benchResult struct {
	Shape        string    `json:"shape"`
	Nodes        int       `json:"nodes"`
	ExistingPods int       `json:"existingPods"`
	Iterations   int       `json:"iterations"` // timed ops per run
	Warmup       int       `json:"warmup"`
	Runs         int       `json:"runs"`
	NsPerOp      float64   `json:"nsPerOp"` // median over runs
	MeanNsPerOp  float64   `json:"meanNsPerOp"`
	MinNsPerOp   float64   `json:"minNsPerOp"`
	UsPerOp      float64   `json:"usPerOp"` // median, in µs
	RunsNsPerOp  []float64 `json:"runsNsPerOp"`
	ScoreSum     int64     `json:"scoreSum"` // sum of the last op's normalized scores (0 for these shapes)
}

type benchDoc struct {
	Benchmark  string        `json:"benchmark"`
	GoVersion  string        `json:"goVersion"`
	GOMAXPROCS int           `json:"gomaxprocs"`
	NumCPU     int           `json:"numCPU"`
	Results    []benchResult `json:"results"`
}

func parseShapes(s string) ([]benchShape, error) {
	var out []benchShape
	for _, item := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(item), "x")
		if len(parts) != 2 {
			return nil, usageErrorf("--shapes: %q is not NODESxPODS", item)
		}
		n, err1 := strconv.Atoi(parts[0])
		p, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil || n <= 0 || p < 0 {
			return nil, usageErrorf("--shapes: %q is not NODESxPODS", item)
		}
		out = append(out, benchShape{Nodes: n, Pods: p})
	}
	return out, nil
}

func benchMain(args []string) error {
	shapes := []benchShape{{100, 1000}, {1000, 10000}}
	nodes, pods := 0, -1
	iterations, warmup, runs := 200, 20, 3
	asJSON := false
	p := &argParser{args: args}
	for ; p.i < len(args); p.i++ {
		a := args[p.i]
		name, inline, hasInline := a, "", false
		if eq := strings.IndexByte(a, '='); eq >= 0 {
			name, inline, hasInline = a[:eq], a[eq+1:], true
		}
		intFlag := func(dst *int, min int) error {
			v, err := p.value(name, inline, hasInline)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < min {
				return usageErrorf("%s %q: want an integer >= %d", name, v, min)
			}
			*dst = n
			return nil
		}
		var err error
		switch name {
		case "--shapes":
			var v string
			if v, err = p.value(name, inline, hasInline); err == nil {
				shapes, err = parseShapes(v)
			}
		case "--nodes":
			err = intFlag(&nodes, 1)
		case "--pods":
			err = intFlag(&pods, 0)
		case "--iterations":
			err = intFlag(&iterations, 1)
		case "--warmup":
			err = intFlag(&warmup, 0)
		case "--runs":
			err = intFlag(&runs, 1)
		case "--json":
			asJSON = true
		default:
			err = usageErrorf("bench: unknown argument %q", a)
		}
		if err != nil {
			return err
		}
	}
	if nodes > 0 || pods >= 0 {
		if nodes <= 0 {
			return usageErrorf("bench: --pods needs --nodes")
		}
		if pods < 0 {
			pods = nodes * 10
		}
		shapes = []benchShape{{nodes, pods}}
	}

	doc := benchDoc{
		Benchmark:  "BenchmarkTestSelectorSpreadPriority",
		GoVersion:  runtime.Version(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		NumCPU:     runtime.NumCPU(),
	}
	for _, s := range shapes {
		r, err := benchShapeRun(s, iterations, warmup, runs)
		if err != nil {
			return err
		}
		doc.Results = append(doc.Results, r)
		if !asJSON {
			fmt.Printf("%-12s nodes=%-6d existingPods=%-7d %12.0f ns/op (median of %d runs x %d ops; mean %.0f, min %.0f)\n",
				r.Shape, r.Nodes, r.ExistingPods, r.NsPerOp, r.Runs, r.Iterations, r.MeanNsPerOp, r.MinNsPerOp)
		}
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return nil
}

func benchShapeRun(s benchShape, iterations, warmup, runs int) (benchResult, error) {
	res := benchResult{
		Shape: fmt.Sprintf("%dnodes", s.Nodes), Nodes: s.Nodes, ExistingPods: s.Pods,
		Iterations: iterations, Warmup: warmup, Runs: runs,
	}
	// Setup, as the Go benchmark does before b.ResetTimer().
	pod := st.MakePod().Name("p").Label("foo", "").Obj()
	existingPods, allNodes, filteredNodes := st.MakeNodesAndPodsForEvenPodsSpread(pod.Labels, s.Pods, s.Nodes, s.Nodes)
	snapshot := internalcache.NewSnapshot(existingPods, allNodes)
	client := fake.NewSimpleClientset(
		&v1.Service{Spec: v1.ServiceSpec{Selector: map[string]string{"foo": ""}}},
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	_ = informerFactory.Core().V1().Services().Lister()
	informerFactory.Start(ctx.Done())
	for typ, synced := range informerFactory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return res, fmt.Errorf("informer cache of %v did not sync", typ)
		}
	}
	fh, err := frameworkruntime.NewFramework(nil, nil, frameworkruntime.WithSnapshotSharedLister(snapshot), frameworkruntime.WithInformerFactory(informerFactory))
	if err != nil {
		return res, err
	}
	pl, err := selectorspread.New(nil, fh)
	if err != nil {
		return res, err
	}
	plugin := pl.(*selectorspread.SelectorSpread)

	var last framework.NodeScoreList
	op := func() error {
		state := framework.NewCycleState()
		status := plugin.PreScore(ctx, state, pod, allNodes)
		if !status.IsSuccess() {
			return fmt.Errorf("unexpected error: %v", status)
		}
		gotList := make(framework.NodeScoreList, len(filteredNodes))
		scoreNode := func(i int) {
			n := filteredNodes[i]
			score, _ := plugin.Score(ctx, state, pod, n.Name)
			gotList[i] = framework.NodeScore{Name: n.Name, Score: score}
		}
		parallelizer := parallelize.NewParallelizer(parallelize.DefaultParallelism)
		parallelizer.Until(ctx, len(filteredNodes), scoreNode)
		status = plugin.NormalizeScore(ctx, state, pod, gotList)
		if !status.IsSuccess() {
			return fmt.Errorf("%v", status)
		}
		last = gotList
		return nil
	}

	for i := 0; i < warmup; i++ {
		if err := op(); err != nil {
			return res, err
		}
	}
	for r := 0; r < runs; r++ {
		runtime.GC()
		t0 := time.Now()
		for i := 0; i < iterations; i++ {
			if err := op(); err != nil {
				return res, err
			}
		}
		res.RunsNsPerOp = append(res.RunsNsPerOp, float64(time.Since(t0).Nanoseconds())/float64(iterations))
	}
	sorted := append([]float64(nil), res.RunsNsPerOp...)
	sort.Float64s(sorted)
	if len(sorted)%2 == 1 {
		res.NsPerOp = sorted[len(sorted)/2]
	} else {
		res.NsPerOp = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	res.MeanNsPerOp = sum / float64(len(sorted))
	res.MinNsPerOp = sorted[0]
	res.UsPerOp = res.NsPerOp / 1000
	for _, ns := range last {
		res.ScoreSum += ns.Score
	}
	return res, nil
}
