// Command goref runs the real kube-scheduler v1.23.6 scoring code on kscore_fast's
// inputs (see docs/contract.md and benchmarks/goref/README.md).
//
//	goref score PATH... [--plugins NAME[=WEIGHT],...] [--config FILE] [--seed N]
//	                    [--format json] [--scores all|top:K|none]
//	                    [--percentage-of-nodes-to-score P] [--explain [--preemption-ties T]]
//	                    [-o FILE] [--quiet]
//	goref bench [--shapes 100x1000,1000x10000 | --nodes N --pods P]
//	            [--iterations K] [--warmup W] [--runs R] [--json]
//	goref config [--config FILE]
//	goref schedbench PATH... [--config FILE] [--percentage-of-nodes-to-score P] [--runs R] [--json]
//	goref simulate PATH... [score's flags] [--plugin-metrics-draw] [--events FILE]
//	                       [--preemption [--retry-nominated] [--preemption-ties go|first|name]]
//	goref simbench PATH... [--plugins ...|--config FILE] [--seed N]
//	                       [--percentage-of-nodes-to-score P] [--plugin-metrics-draw] [--runs R] [--json]
//	goref replay PATH... --events FILE [--until SECONDS] [--plugins ...|--config FILE] [--seed N]
//	                     [--percentage-of-nodes-to-score P] [--plugin-metrics-draw] [--preemption [--preemption-ties T]]
//	                     [--timing] [-o FILE] [--quiet]
//	goref bench-preemption [--nodes N] [--init-pods M] [--preemptors K] [--config FILE] [--seed N]
//	                       [--runs R] [--json] [--dump FILE]
//	goref pdb-status PATH...
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"k8s.io/klog/v2"
)

const usage = `usage:
  goref score PATH... [--plugins NAME[=WEIGHT],...] [--config FILE] [--seed N]
                      [--format json] [--scores all|top:K|none]
                      [--percentage-of-nodes-to-score P] [--explain [--preemption-ties T]]
                      [-o FILE] [--quiet]
  goref bench [--shapes NODESxPODS,...] [--nodes N --pods P] [--iterations K]
              [--warmup W] [--runs R] [--json]
  goref config [--config FILE]
  goref schedbench PATH... [--config FILE] [--percentage-of-nodes-to-score P] [--runs R]
                   [--json]
  goref simulate PATH... [--plugins NAME[=WEIGHT],...] [--config FILE] [--seed N]
                         [--format json] [--scores all|top:K|none]
                         [--percentage-of-nodes-to-score P] [--plugin-metrics-draw]
                         [--events FILE] [--preemption [--retry-nominated] [--preemption-ties T]]
                         [-o FILE] [--quiet]
  goref simbench PATH... [--plugins NAME[=WEIGHT],...] [--config FILE] [--seed N]
                         [--percentage-of-nodes-to-score P] [--plugin-metrics-draw]
                         [--runs R] [--json]
  goref replay PATH... --events FILE [--until SECONDS] [--plugins NAME[=WEIGHT],...]
                       [--config FILE] [--seed N] [--percentage-of-nodes-to-score P]
                       [--plugin-metrics-draw] [--preemption [--preemption-ties T]] [--timing]
                       [-o FILE] [--quiet]
  goref bench-preemption [--nodes N] [--init-pods M] [--preemptors K] [--config FILE]
                         [--seed N] [--runs R] [--json] [--dump FILE]
  goref pdb-status PATH...
  (T: go, first or name)
`

func main() {
	silenceKlog()
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "score":
		err = scoreMain(os.Args[2:])
	case "bench":
		err = benchMain(os.Args[2:])
	case "config":
		err = configMain(os.Args[2:])
	case "schedbench":
		err = schedbenchMain(os.Args[2:])
	case "simulate":
		err = simulateMain(os.Args[2:])
	case "simbench":
		err = simbenchMain(os.Args[2:])
	case "replay":
		err = replayMain(os.Args[2:])
	case "bench-preemption":
		err = benchPreemptionMain(os.Args[2:])
	case "pdb-status":
		err = pdbStatusMain(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		err = usageErrorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goref: %v\n", err)
		var ie *inputError
		if errors.As(err, &ie) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// silenceKlog keeps the scheduler's own klog lines (e.g. "Evaluation failed on
// nominated node") off stderr, which carries only goref's warning line; set
// GOREF_KLOG=1 to see them.
func silenceKlog() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	if os.Getenv("GOREF_KLOG") == "1" {
		klog.SetOutput(io.MultiWriter(os.Stderr, traceCounter{}))
		return
	}
	klog.SetOutput(traceCounter{})
}

// slowCycles counts the scheduling cycles whose trace was logged. genericScheduler.Schedule
// ends with utiltrace's LogIfLong(100ms): a cycle that took 100 ms or more logs its trace,
// and logging a trace draws rand.Int31() from the global math/rand, the source selectHost
// draws its tie-breaks from. The placements after such a cycle depend on timing, in
// kube-scheduler as here; each result reports the draws of its own cycle (traceDraws).
var slowCycles atomic.Int64

// traceCounter is klog's output while klog is silenced: it counts the logged
// "Scheduling" traces (one klog entry, one Write each) and discards everything.
type traceCounter struct{}

func (traceCounter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("] Trace[")) && bytes.Contains(p, []byte(`"Scheduling"`)) {
		slowCycles.Add(1)
	}
	return len(p), nil
}

func usageErrorf(format string, args ...interface{}) error {
	return &inputError{msg: fmt.Sprintf(format, args...) + "\n" + usage}
}

// argParser handles "--flag value", "--flag=value" and flags mixed with positionals.
type argParser struct {
	args []string
	i    int
}

func (p *argParser) value(name, inline string, hasInline bool) (string, error) {
	if hasInline {
		return inline, nil
	}
	if p.i+1 >= len(p.args) {
		return "", usageErrorf("%s needs a value", name)
	}
	p.i++
	return p.args[p.i], nil
}

type scoreFlags struct {
	paths      []string
	opts       scoreOptions
	pluginsSet bool
	format     string
	scores     string
	topK       int
	output     string
	quiet      bool
}

func parseScoreFlags(args []string) (*scoreFlags, error) {
	f := &scoreFlags{format: "json", scores: "all"}
	f.opts.Plugins = []pluginSpec{{Name: "SelectorSpread", Weight: 1}}
	p := &argParser{args: args}
	onlyPaths := false
	for ; p.i < len(args); p.i++ {
		a := args[p.i]
		if onlyPaths || a == "-" || !strings.HasPrefix(a, "-") {
			f.paths = append(f.paths, a)
			continue
		}
		if a == "--" {
			onlyPaths = true
			continue
		}
		name, inline, hasInline := a, "", false
		if eq := strings.IndexByte(a, '='); eq >= 0 {
			name, inline, hasInline = a[:eq], a[eq+1:], true
		}
		var err error
		var v string
		switch name {
		case "--plugins":
			if v, err = p.value(name, inline, hasInline); err == nil {
				f.pluginsSet = true
				f.opts.Plugins, err = parsePlugins(v)
			}
		case "--config":
			if v, err = p.value(name, inline, hasInline); err == nil {
				f.opts.ConfigFile = v
				if v == "" {
					err = usageErrorf("--config needs a file")
				}
			}
		case "--seed":
			if v, err = p.value(name, inline, hasInline); err == nil {
				f.opts.Seed, err = strconv.ParseInt(v, 10, 64)
				if err != nil {
					err = usageErrorf("--seed: not an integer: %q", v)
				}
			}
		case "--format":
			if v, err = p.value(name, inline, hasInline); err == nil {
				f.format = v
				if v != "json" {
					err = usageErrorf("--format %q: goref writes only json", v)
				}
			}
		case "--scores":
			if v, err = p.value(name, inline, hasInline); err == nil {
				switch {
				case v == "all" || v == "none":
					f.scores = v
				case strings.HasPrefix(v, "top:"):
					k, perr := strconv.Atoi(v[4:])
					if perr != nil || k < 0 {
						err = usageErrorf("--scores %q: K must be a non-negative integer", v)
					}
					f.scores, f.topK = "top", k
				default:
					err = usageErrorf("--scores %q: want all, top:K or none", v)
				}
			}
		case "--percentage-of-nodes-to-score":
			if v, err = p.value(name, inline, hasInline); err == nil {
				n, perr := strconv.ParseInt(v, 10, 32)
				if perr != nil || n < 0 || n > 100 {
					err = usageErrorf("--percentage-of-nodes-to-score %q: not in valid range [0-100]", v)
				}
				f.opts.Percentage, f.opts.PercentageSet = int32(n), true
			}
		case "-o", "--output":
			if v, err = p.value(name, inline, hasInline); err == nil {
				f.output = v
				if v == "" {
					err = usageErrorf("-o needs a file")
				}
			}
		case "--quiet", "-q":
			if hasInline {
				err = usageErrorf("--quiet takes no value")
			}
			f.quiet = true
		case "--explain":
			if hasInline {
				err = usageErrorf("--explain takes no value")
			}
			f.opts.Explain = true
		case "--preemption-ties":
			if v, err = p.value(name, inline, hasInline); err == nil {
				f.opts.PreemptionTies = v
				if !preemptionTieBreaks[v] {
					err = usageErrorf("--preemption-ties %q: want go, first or name", v)
				}
			}
		default:
			err = usageErrorf("unknown flag %q", a)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(f.paths) == 0 {
		return nil, usageErrorf("score needs at least one PATH")
	}
	if f.opts.ConfigFile != "" && f.pluginsSet {
		return nil, usageErrorf("--config and --plugins cannot be used together")
	}

	return f, nil
}

// parsePlugins parses NAME[=WEIGHT],... ; "" means no score plugin. Weight 0 stays 0
// here and becomes 1 in the framework's getScoreWeights.
func parsePlugins(s string) ([]pluginSpec, error) {
	specs := []pluginSpec{}
	if s == "" {
		return specs, nil
	}
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		name, w := item, int64(0)
		if eq := strings.IndexByte(item, '='); eq >= 0 {
			name = item[:eq]
			var err error
			w, err = strconv.ParseInt(item[eq+1:], 10, 32)
			if err != nil {
				return nil, usageErrorf("--plugins: weight of %q is not an integer: %q", name, item[eq+1:])
			}
			if w < 0 {
				return nil, usageErrorf("--plugins: weight of %q is negative: %d", name, w)
			}
		}
		if name == "" {
			return nil, usageErrorf("--plugins: empty plugin name in %q", s)
		}
		if seen[name] {
			return nil, usageErrorf("--plugins: %q listed twice", name)
		}
		seen[name] = true
		specs = append(specs, pluginSpec{Name: name, Weight: int32(w)})
	}
	return specs, nil
}

func scoreMain(args []string) error {
	f, err := parseScoreFlags(args)
	if err != nil {
		return err
	}
	if f.opts.PreemptionTies != "" && !f.opts.Explain {
		return usageErrorf("--preemption-ties needs --explain")
	}
	in, err := loadInputs(f.paths)
	if err != nil {
		return err
	}
	if !f.quiet {
		if w := in.warningLine("goref"); w != "" {
			fmt.Fprintln(os.Stderr, w)
		}
	}
	h, err := newHarness(in, f.opts)
	if err != nil {
		return err
	}
	defer h.close()
	if f.opts.Explain && h.recs.preemption == nil {
		return usageErrorf("--explain needs a profile with DefaultPreemption at postFilter (e.g. --config with the default profile)")
	}

	ctx := context.Background()
	run := func(yield func(resultJSON) error) error {
		for _, pod := range in.PendingPods {
			r, err := h.schedule(ctx, pod)
			if err != nil {
				return err
			}
			if f.opts.Explain && r.Host == nil {
				// what preemption would do; nothing is applied
				r.preemptionJSON = runPostFilter(ctx, h.fwk, h.recs.preemption, h.state, pod, r.scheduleErr).json
			}
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
	return writeOutput(f.output, func(w io.Writer) error { return writeResults(w, f, run) })
}

// writeOutput writes to stdout, or to a temporary file beside path renamed onto it.
func writeOutput(path string, write func(io.Writer) error) error {
	if path == "" {
		return write(os.Stdout)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	ok = true
	return nil
}
