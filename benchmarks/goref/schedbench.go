package main

// goref schedbench: the time of genericScheduler.Schedule per pending pod, through the
// plain in-tree registry (no recording wrappers), in independent mode (nothing assumed),
// as kscore's batch scores. One run = a fresh harness (cache, snapshot, informers,
// framework from --config) and one Schedule per pending pod, timed from the first to the
// last; the harness setup is not timed.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type schedbenchResult struct {
	GoVersion   string    `json:"goVersion"`
	Gomaxprocs  int       `json:"gomaxprocs"`
	Nodes       int       `json:"nodes"`
	Pods        int       `json:"pods"`
	Scheduled   int       `json:"scheduled"`
	Runs        []float64 `json:"runsNsPerPod"`
	MinNsPerPod float64   `json:"minNsPerPod"`
	ConfigFile  string    `json:"config"`
	Percentage  *int32    `json:"percentageOfNodesToScore,omitempty"`
}

func schedbenchMain(args []string) error {
	var paths []string
	opts := scoreOptions{Plain: true}
	runs := 3
	asJSON := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", usageErrorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		switch a {
		case "--config":
			v, err := value()
			if err != nil {
				return err
			}
			opts.ConfigFile = v
		case "--percentage-of-nodes-to-score":
			v, err := value()
			if err != nil {
				return err
			}
			p, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return usageErrorf("--percentage-of-nodes-to-score %q: %v", v, err)
			}
			opts.Percentage, opts.PercentageSet = int32(p), true
		case "--runs":
			v, err := value()
			if err != nil {
				return err
			}
			if runs, err = strconv.Atoi(v); err != nil || runs < 1 {
				return usageErrorf("--runs %q: want a positive integer", v)
			}
		case "--json":
			asJSON = true
		default:
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		return usageErrorf("schedbench: no input paths")
	}
	in, err := loadInputs(paths)
	if err != nil {
		return err
	}
	res := schedbenchResult{GoVersion: runtime.Version(), Gomaxprocs: runtime.GOMAXPROCS(0),
		Nodes: len(in.Nodes), Pods: len(in.PendingPods), ConfigFile: opts.ConfigFile}
	if opts.PercentageSet {
		res.Percentage = &opts.Percentage
	}
	ctx := context.Background()
	for r := 0; r < runs; r++ {
		h, err := newHarness(in, opts)
		if err != nil {
			return err
		}
		scheduled := 0
		start := time.Now()
		for _, pod := range in.PendingPods {
			if _, err := h.alg.Schedule(ctx, nil, h.plain, framework.NewCycleState(), pod); err == nil {
				scheduled++
			}
		}
		elapsed := time.Since(start)
		h.close()
		n := len(in.PendingPods)
		if n == 0 {
			n = 1
		}
		per := float64(elapsed.Nanoseconds()) / float64(n)
		res.Runs = append(res.Runs, per)
		if r == 0 || per < res.MinNsPerPod {
			res.MinNsPerPod = per
		}
		res.Scheduled = scheduled
	}
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	fmt.Printf("%d pods on %d nodes: %.1f µs per pod (best of %d), %d scheduled\n",
		res.Pods, res.Nodes, res.MinNsPerPod/1e3, runs, res.Scheduled)
	return nil
}
