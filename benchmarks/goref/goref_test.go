package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	utiltrace "k8s.io/utils/trace"
)

// testHarness loads paths and builds a harness, closed when the test ends.
func testHarness(t *testing.T, paths []string, opts scoreOptions) (*inputSet, *harness) {
	t.Helper()
	in, err := loadInputs(paths)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHarness(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.close)
	return in, h
}

// runAll loads paths and schedules every pending pod.
func runAll(t *testing.T, paths []string, opts scoreOptions) []resultJSON {
	t.Helper()
	in, h := testHarness(t, paths, opts)
	var out []resultJSON
	for _, p := range in.PendingPods {
		r, err := h.schedule(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

var selectorSpread = []pluginSpec{{Name: "SelectorSpread", Weight: 1}}

func hosts(rs []resultJSON) []string {
	var h []string
	for _, r := range rs {
		if r.Host == nil {
			h = append(h, "<nil>")
		} else {
			h = append(h, *r.Host)
		}
	}
	return h
}

// TestSmallCluster checks testdata/small against values worked out by hand from the
// SelectorSpread spec (node and zone counts, the float formula, truncation).
func TestSmallCluster(t *testing.T) {
	in, err := loadInputs([]string{"testdata/small"})
	if err != nil {
		t.Fatal(err)
	}
	want := "goref: skipped 2 objects of unused kinds (ConfigMap 1, Deployment 1); left out 1 pods bound to nodes absent from the input"
	if got := in.warningLine("goref"); got != want {
		t.Errorf("warning line\n got %q\nwant %q", got, want)
	}
	rs := runAll(t, []string{"testdata/small"}, scoreOptions{Plugins: selectorSpread, Seed: 1})
	type nodeWant struct {
		node            string
		raw, normalized int64
	}
	// Node tree order: zone-a, zone-b (n2's beta label wins), no zone; round robin.
	wantScores := map[string][]nodeWant{
		"default/p-svc":       {{"n1", 2, 0}, {"n2", 1, 61}, {"n5", 0, 100}, {"n3", 1, 16}, {"n4", 0, 77}},
		"default/p-rs":        {{"n1", 2, 0}, {"n2", 1, 50}, {"n5", 0, 100}, {"n3", 0, 33}, {"n4", 0, 66}},
		"default/p-tsc":       {{"n1", 0, 0}, {"n2", 0, 0}, {"n5", 0, 0}, {"n3", 0, 0}, {"n4", 0, 0}},
		"default/p-nomatch":   {{"n1", 0, 100}, {"n2", 0, 100}, {"n5", 0, 100}, {"n3", 0, 100}, {"n4", 0, 100}},
		"other/p-other":       {{"n1", 0, 100}, {"n2", 0, 33}, {"n5", 0, 100}, {"n3", 0, 100}, {"n4", 1, 0}},
		"default/p-nominated": {},
	}
	if len(rs) != len(wantScores) {
		t.Fatalf("got %d results, want %d", len(rs), len(wantScores))
	}
	for _, r := range rs {
		w, ok := wantScores[r.Pod]
		if !ok {
			t.Errorf("unexpected pod %s", r.Pod)
			continue
		}
		if r.Error != nil {
			t.Errorf("%s: error %s", r.Pod, *r.Error)
			continue
		}
		if len(r.Scores) != len(w) {
			t.Errorf("%s: %d scores, want %d", r.Pod, len(r.Scores), len(w))
			continue
		}
		for i, s := range r.Scores {
			p := s.Plugins["SelectorSpread"]
			if s.Node != w[i].node || p.Raw != w[i].raw || p.Normalized != w[i].normalized || p.Weighted != w[i].normalized || s.Total != w[i].normalized {
				t.Errorf("%s: score %d = %s %+v total %d, want %+v", r.Pod, i, s.Node, p, s.Total, w[i])
			}
		}
	}
	if h := hosts(rs); h[0] != "n5" || h[1] != "n5" || h[5] != "n3" {
		t.Errorf("hosts %v: want n5 (unique max) for p-svc and p-rs, n3 (nominated) for p-nominated", h)
	}
	if r := rs[5]; r.FeasibleNodes != 1 || r.EvaluatedNodes != 1 {
		t.Errorf("nominated: feasible %d evaluated %d, want 1 1", r.FeasibleNodes, r.EvaluatedNodes)
	}
}

// writeTieCluster writes n nodes in 2 zones, no existing pods, and pods pending pods:
// with SelectorSpread (or no score plugin) every node ties.
func writeTieCluster(t *testing.T, n, pods int, zones bool) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < n; i++ {
		labels := ""
		if zones {
			labels = fmt.Sprintf(", labels: {topology.kubernetes.io/zone: z%d}", i%2)
		}
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: node%03d%s}\n", i, labels)
	}
	for i := 0; i < pods; i++ {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%03d, labels: {app: x}}\nspec: {containers: [{name: c, image: x}]}\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSeed: rand.Seed(seed) of the global math/rand drives selectHost's tie-break, so
// the same seed gives the same hosts and another seed other hosts (this needs the
// module's go line < 1.24, else rand.Seed is a no-op).
func TestSeed(t *testing.T) {
	dir := writeTieCluster(t, 20, 40, true)
	for _, pl := range [][]pluginSpec{selectorSpread, {}} {
		a := hosts(runAll(t, []string{dir}, scoreOptions{Plugins: pl, Seed: 7}))
		b := hosts(runAll(t, []string{dir}, scoreOptions{Plugins: pl, Seed: 7}))
		c := hosts(runAll(t, []string{dir}, scoreOptions{Plugins: pl, Seed: 8}))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("plugins %v: seed 7 twice gave different hosts:\n%v\n%v", pl, a, b)
		}
		if reflect.DeepEqual(a, c) {
			t.Errorf("plugins %v: seeds 7 and 8 gave the same 40 hosts among 20 tied nodes: %v", pl, a)
		}
		distinct := map[string]bool{}
		for _, h := range a {
			distinct[h] = true
		}
		if len(distinct) < 5 {
			t.Errorf("plugins %v: only %d distinct hosts over 40 tied pods", pl, len(distinct))
		}
	}
}

// TestRotation: with 250 nodes the adaptive percentage scores 120 nodes per pod and
// nextStartNodeIndex moves 0, 120, 240, 110 (mod 250), with and without score plugins.
func TestRotation(t *testing.T) {
	dir := writeTieCluster(t, 250, 4, false)
	for _, pl := range [][]pluginSpec{selectorSpread, {}} {
		rs := runAll(t, []string{dir}, scoreOptions{Plugins: pl, Seed: 1})
		for i, start := range []int{0, 120, 240, 110} {
			r := rs[i]
			if r.FeasibleNodes != 120 || r.EvaluatedNodes != 120 || len(r.Scores) != 120 {
				t.Fatalf("plugins %v pod %d: feasible %d evaluated %d scores %d, want 120", pl, i, r.FeasibleNodes, r.EvaluatedNodes, len(r.Scores))
			}
			if want := fmt.Sprintf("node%03d", start); r.Scores[0].Node != want {
				t.Errorf("plugins %v pod %d: first scored node %s, want %s", pl, i, r.Scores[0].Node, want)
			}
			if want := fmt.Sprintf("node%03d", (start+119)%250); r.Scores[119].Node != want {
				t.Errorf("plugins %v pod %d: last scored node %s, want %s", pl, i, r.Scores[119].Node, want)
			}
		}
	}
	rs := runAll(t, []string{dir}, scoreOptions{Plugins: selectorSpread, Percentage: 100, PercentageSet: true})
	if len(rs[1].Scores) != 250 || rs[1].Scores[0].Node != "node000" {
		t.Errorf("percentage 100: %d scores starting at %s", len(rs[1].Scores), rs[1].Scores[0].Node)
	}
}

func TestNoNodes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.yaml"), []byte("kind: Pod\napiVersion: v1\nmetadata: {name: a}\nspec: {containers: [{name: c, image: x}]}\n"), 0o644)
	rs := runAll(t, []string{dir}, scoreOptions{Plugins: selectorSpread})
	b, _ := json.Marshal(rs[0])
	want := `{"pod":"default/a","host":null,"feasibleNodes":0,"evaluatedNodes":0,"error":"no nodes available to schedule pods","scores":[]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestInputErrors(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"malformed", "kind: Pod\nmetadata: {name: [\n", "malformed YAML"},
		{"nokind", "apiVersion: v1\nmetadata: {name: a}\n", "object without kind"},
		{"noname", "kind: Node\nmetadata: {}\n", "Node without metadata.name"},
		{"dup", "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: a}\n", "duplicate name"},
		{"label", "kind: Node\nmetadata: {name: a, labels: {\"bad key!\": x}}\n", "metadata.labels"},
		{"labelvalue", "kind: Pod\nmetadata: {name: a, labels: {k: \"-bad\"}}\n", "metadata.labels"},
		{"operator", "kind: ReplicaSet\napiVersion: apps/v1\nmetadata: {name: a}\nspec: {selector: {matchExpressions: [{key: k, operator: Gt, values: [\"1\"]}]}}\n", "spec.selector.matchExpressions[0].operator"},
		{"quantity", "kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, resources: {requests: {cpu: 1x}}}]}\n", "spec.containers[0].resources.requests[cpu]"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		p := filepath.Join(dir, c.name+".yaml")
		os.WriteFile(p, []byte(c.doc), 0o644)
		_, err := loadInputs([]string{dir})
		var ie *inputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an input error", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name %q and the file", c.name, err, c.want)
		}
	}
}

func TestParsePlugins(t *testing.T) {
	got, err := parsePlugins("SelectorSpread=2,ImageLocality,TaintToleration=0")
	want := []pluginSpec{{"SelectorSpread", 2}, {"ImageLocality", 0}, {"TaintToleration", 0}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v %v", got, err)
	}
	if got, err := parsePlugins(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
	for _, bad := range []string{"A=-1", "A=1.5", "A,A", "A,,B", "A=x"} {
		if _, err := parsePlugins(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestLists: items of a typed list without kind take the list's item kind; a *List
// kind without items is an object of an unused kind; unused kinds need no name.
func TestLists(t *testing.T) {
	dir := t.TempDir()
	doc := `kind: NodeList
items:
- metadata: {name: a}
- kind: Node
  metadata: {name: b}
---
kind: PodList
items: null
---
kind: FooList
metadata: {name: f}
---
kind: ConfigMap
metadata: {}
`
	p := filepath.Join(dir, "in.txt") // named explicitly: read whatever its suffix
	os.WriteFile(p, []byte(doc), 0o644)
	in, err := loadInputs([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Nodes) != 2 || in.Nodes[0].Name != "a" || in.Nodes[1].Name != "b" {
		t.Errorf("nodes %v", in.Nodes)
	}
	if !reflect.DeepEqual(in.SkippedKinds, map[string]int{"FooList": 1, "ConfigMap": 1}) {
		t.Errorf("skipped %v", in.SkippedKinds)
	}
}

// runSim loads paths and runs goref simulate's sequence.
func runSim(t *testing.T, paths []string, opts scoreOptions, metricsDraw bool) []resultJSON {
	t.Helper()
	in, h := testHarness(t, paths, opts)
	pods, err := queueOrder(h.plain, in.PendingPods)
	if err != nil {
		t.Fatal(err)
	}
	sim := newSimulator(h, metricsDraw)
	var out []resultJSON
	for _, p := range pods {
		r, err := sim.step(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// seqCluster: two empty nodes with 2 CPUs; "low" (priority 0, first in the input) wants
// host port 8080, p1 (priority 10) 1.5 CPU and port 8080, p2 (10) 1.5 CPU, p3 (5) 0.1
// CPU and port 8080.
const seqCluster = `
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Node
metadata: {name: b}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Pod
metadata: {name: low}
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}, ports: [{containerPort: 80, hostPort: 8080}]}]}
---
kind: Pod
metadata: {name: p1}
spec: {priority: 10, containers: [{name: c, resources: {requests: {cpu: 1500m}}, ports: [{containerPort: 80, hostPort: 8080}]}]}
---
kind: Pod
metadata: {name: p2}
spec: {priority: 10, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
---
kind: Pod
metadata: {name: p3}
spec: {priority: 5, containers: [{name: c, resources: {requests: {cpu: 100m}}, ports: [{containerPort: 80, hostPort: 8080}]}]}
`

// TestSimulateSeesAssumedPods: each pod sees the CPU and host ports of the pods placed
// before it (NodeResourcesFit, NodePorts of the default profile), in PrioritySort order.
func TestSimulateSeesAssumedPods(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(seqCluster), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := scoreOptions{ConfigFile: "testdata/filters/default-v1beta3.yaml.cfg"}
	for seed := int64(0); seed < 6; seed++ {
		cfg.Seed = seed
		rs := runSim(t, []string{dir}, cfg, false)
		var pods []string
		for _, r := range rs {
			pods = append(pods, r.Pod)
		}
		if want := []string{"default/p1", "default/p2", "default/p3", "default/low"}; !reflect.DeepEqual(pods, want) {
			t.Fatalf("order %v, want %v", pods, want)
		}
		h := hosts(rs)
		other := map[string]string{"a": "b", "b": "a"}[h[0]]
		if rs[0].FeasibleNodes != 2 || h[1] != other || rs[1].FeasibleNodes != 1 || h[2] != other || rs[2].FeasibleNodes != 1 {
			t.Errorf("seed %d: hosts %v, feasible %d %d %d: p2 must avoid p1's CPU, p3 its port", seed, h, rs[0].FeasibleNodes, rs[1].FeasibleNodes, rs[2].FeasibleNodes)
		}
		want := "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports."
		if rs[3].Host != nil || rs[3].Error == nil || *rs[3].Error != want {
			t.Errorf("seed %d: low: host %v error %v, want %q", seed, rs[3].Host, rs[3].Error, want)
		}
	}
	// independent mode: every pod fits on both nodes
	for _, r := range runAll(t, []string{dir}, cfg) {
		if r.FeasibleNodes != 2 || r.Host == nil {
			t.Errorf("score: %s feasible %d", r.Pod, r.FeasibleNodes)
		}
	}
}

// TestSimulateSeed: sequential tie-breaks are reproducible per seed, differ across seeds,
// and scheduleOne's rand.Intn(100) per cycle (--plugin-metrics-draw) shifts them.
func TestSimulateSeed(t *testing.T) {
	dir := writeTieCluster(t, 20, 40, false)
	opts := scoreOptions{Plugins: []pluginSpec{}, Seed: 7}
	a := hosts(runSim(t, []string{dir}, opts, false))
	b := hosts(runSim(t, []string{dir}, opts, false))
	m := hosts(runSim(t, []string{dir}, opts, true))
	opts.Seed = 8
	c := hosts(runSim(t, []string{dir}, opts, false))
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) || reflect.DeepEqual(a, m) {
		t.Errorf("seed 7 %v\nseed 7 %v\nseed 8 %v\nseed 7 with metrics draws %v", a, b, c, m)
	}
}

func TestQueueOrder(t *testing.T) {
	in, h := testHarness(t, []string{"testdata/small"}, scoreOptions{Plugins: selectorSpread})
	prio := []int32{0, 5, -3, 5, 100, 0}
	for i, p := range in.PendingPods {
		if i < len(prio) && prio[i] != 0 {
			p.Spec.Priority = &prio[i]
		}
	}
	got, err := queueOrder(h.plain, in.PendingPods)
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for _, p := range got {
		for i, q := range in.PendingPods {
			if p == q {
				idx = append(idx, i)
			}
		}
	}
	if want := []int{4, 1, 3, 0, 5, 2}; !reflect.DeepEqual(idx, want) {
		t.Errorf("queue order %v, want %v", idx, want)
	}
}

func TestTakeFlags(t *testing.T) {
	var j, d bool
	runs := 3
	rest, err := takeFlags([]string{"x", "--json", "--runs", "5", "--seed", "2", "--runs=7", "--", "--json"},
		map[string]*bool{"--json": &j, "--d": &d}, map[string]*int{"--runs": &runs}, nil)
	if err != nil || !j || d || runs != 7 || !reflect.DeepEqual(rest, []string{"x", "--seed", "2", "--", "--json"}) {
		t.Errorf("rest %v err %v json %v d %v runs %d", rest, err, j, d, runs)
	}
	if _, err := takeFlags([]string{"--runs", "0"}, nil, map[string]*int{"--runs": &runs}, nil); err == nil {
		t.Error("--runs 0 accepted")
	}
}

// runEvents loads cluster (a YAML document) and applies the events (JSON Lines) as
// `goref simulate --events` does, with the v1beta3 default profile.
func runEvents(t *testing.T, cluster, events string, seed int64) []resultJSON {
	t.Helper()
	dir := t.TempDir()
	ev := filepath.Join(dir, "events.jsonl")
	if os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(cluster), 0o644) != nil || os.WriteFile(ev, []byte(events), 0o644) != nil {
		t.Fatal("cannot write the test files")
	}
	ops, err := readEvents(ev)
	if err != nil {
		t.Fatal(err)
	}
	in, h := testHarness(t, []string{filepath.Join(dir, "c.yaml")}, scoreOptions{ConfigFile: "testdata/filters/default-v1beta3.yaml.cfg", Seed: seed})
	var out []resultJSON
	err = newEventRun(newSimulator(h, true), in).apply(context.Background(), ops, func(r resultJSON) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const eventCluster = `
kind: Node
metadata: {name: a, labels: {topology.kubernetes.io/zone: z1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Node
metadata: {name: b, labels: {topology.kubernetes.io/zone: z2}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Pod
metadata: {name: p1}
spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
---
kind: Pod
metadata: {name: p2}
spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
---
kind: Pod
metadata: {name: p3}
spec: {containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
`

const nodeC = `{"metadata":{"name":"c","labels":{"topology.kubernetes.io/zone":"z3"}},"status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"10"}}}`

// TestEvents: a pod that fit nowhere fits on an added node; the pods of a removed node
// stay in the cache and count again when a node of that name is added back; deleting
// an assumed pod frees its room; an added pending pod is scheduled like the others.
func TestEvents(t *testing.T) {
	events := strings.Join([]string{
		`{"op":"schedule","pod":"default/p1"}`,
		`{"op":"schedule","pod":"default/p2"}`,
		`{"op":"schedule","pod":"default/p3"}`,
		`{"op":"addNode","node":` + nodeC + `}`,
		`{"op":"schedule","pod":"default/p3"}`,
		`{"op":"removeNode","node":"c"}`,
		`{"op":"addPod","pod":{"metadata":{"name":"p4"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1500m"}}}]}}}`,
		`{"op":"addNode","node":` + nodeC + `}`,
		`{"op":"schedule","pod":"default/p4"}`,
		`{"op":"delete","pod":"default/p3"}`,
		`{"op":"schedule","pod":"default/p4"}`,
		`{"op":"delete","pod":"default/p1"}`,
		`{"op":"removeNode","node":"c"}`,
		`{"op":"addPod","pod":{"metadata":{"name":"p5"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1500m"}}}]}}}`,
		`{"op":"schedule","pod":"default/p5"}`,
	}, "\n")
	rs := runEvents(t, eventCluster, events, 3)
	h := hosts(rs)
	want := []string{"", "", "<nil>", "c", "<nil>", "c", ""}
	if len(h) != len(want) {
		t.Fatalf("hosts %v, want %d results", h, len(want))
	}
	for i, w := range want {
		if w != "" && h[i] != w {
			t.Errorf("result %d (%s): host %s, want %s", i, rs[i].Pod, h[i], w)
		}
	}
	if h[0] == h[1] {
		t.Errorf("p1 and p2 on the same node %s", h[0])
	}
	if msg := "0/3 nodes are available: 3 Insufficient cpu."; rs[4].Error == nil || *rs[4].Error != msg {
		t.Errorf("p4 with p3 back on c: error %v, want %q", rs[4].Error, msg)
	}
	// p1 deleted, c removed: p5 fits only where p1 was
	if h[6] != h[0] {
		t.Errorf("p5 on %s, want p1's node %s", h[6], h[0])
	}
}

// TestEventsStaleNodeOrder: a node removed and added back between two cycles moves to
// the end of its zone in the node tree, but UpdateSnapshot rebuilds the node list only
// when the snapshot's node set changed, so the next cycle still sees the old order; a
// cycle after another node add sees the tree's order.
func TestEventsStaleNodeOrder(t *testing.T) {
	cluster := strings.ReplaceAll(eventCluster, "zone: z2", "zone: z1") // a, b in z1
	events := strings.Join([]string{
		`{"op":"addNode","node":` + nodeC + `}`,
		`{"op":"schedule","pod":"default/p1"}`,
		`{"op":"delete","pod":"default/p1"}`,
		`{"op":"removeNode","node":"a"}`,
		`{"op":"addNode","node":{"metadata":{"name":"a","labels":{"topology.kubernetes.io/zone":"z1"}},"status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"10"}}}}`,
		`{"op":"schedule","pod":"default/p2"}`,
		`{"op":"delete","pod":"default/p2"}`,
		`{"op":"addNode","node":{"metadata":{"name":"d","labels":{"topology.kubernetes.io/zone":"z9"}},"status":{"allocatable":{"cpu":"1","memory":"4Gi","pods":"10"}}}}`,
		`{"op":"schedule","pod":"default/p3"}`,
	}, "\n")
	rs := runEvents(t, cluster, events, 1)
	order := func(r resultJSON) string {
		var names []string
		for _, s := range r.Scores {
			names = append(names, s.Node)
		}
		return strings.Join(names, ",")
	}
	// every node is examined (start stays 0); d lacks CPU and is not scored
	for i, want := range []string{"a,c,b", "a,c,b", "b,c,a"} {
		if got := order(rs[i]); got != want {
			t.Errorf("cycle %d (%s): scored %s, want %s", i, rs[i].Pod, got, want)
		}
	}
}

// TestEventsPodOnAbsentNode: a bound pod added for a node the cache does not have is kept
// (its NodeInfo has no node) and counts once that node is added; a host port freed by
// deleting one of two pods that use it is free (HostPortInfo is a set).
func TestEventsPodOnAbsentNode(t *testing.T) {
	cluster := eventCluster + `---
kind: Pod
metadata: {name: x1}
spec: {nodeName: a, containers: [{name: c, ports: [{containerPort: 80, hostPort: 80}]}]}
---
kind: Pod
metadata: {name: x2}
spec: {nodeName: a, containers: [{name: c, ports: [{containerPort: 80, hostPort: 80}]}]}
`
	events := strings.Join([]string{
		`{"op":"addPod","pod":{"metadata":{"name":"big"},"spec":{"nodeName":"c","containers":[{"name":"c","resources":{"requests":{"cpu":"1500m"}}}]}}}`,
		`{"op":"addNode","node":` + nodeC + `}`,
		`{"op":"removeNode","node":"b"}`,
		`{"op":"delete","pod":"default/x1"}`,
		`{"op":"addPod","pod":{"metadata":{"name":"port"},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"hostPort":80}]}]}}}`,
		`{"op":"schedule","pod":"default/p1"}`,
		`{"op":"schedule","pod":"default/port"}`,
	}, "\n")
	rs := runEvents(t, cluster, events, 5)
	if h := hosts(rs); h[0] != "a" || rs[0].FeasibleNodes != 1 || rs[1].FeasibleNodes != 2 {
		t.Errorf("hosts %v, feasible %d %d: want p1 on a alone (c holds big), a and c for port (x2's port freed)", h, rs[0].FeasibleNodes, rs[1].FeasibleNodes)
	}
}

func TestReadEventsErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"op":"bind","pod":"a/b"}`, "unknown op"},
		{`{"op":"schedule","pod":{}}`, "must be a non-empty string"},
		{`{"op":"addNode","node":"n"}`, "must be an object"},
		{`{"op":`, "malformed JSON"},
	} {
		p := filepath.Join(t.TempDir(), "e.jsonl")
		os.WriteFile(p, []byte("\n"+c.line+"\n"), 0o644)
		_, err := readEvents(p)
		var ie *inputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%s: error %v, want an input error with %q at line 2", c.line, err, c.want)
		}
	}
}

// TestSlowCycleTraceDraws: a cycle's trace logged by utiltrace.LogIfLong (what
// genericScheduler.Schedule does when the cycle took 100 ms or more) draws one
// rand.Int31() from the global source selectHost draws from, and goref counts it.
func TestSlowCycleTraceDraws(t *testing.T) {
	silenceKlog()
	rand.Seed(7)
	rand.Int31()
	want := rand.Int31()

	rand.Seed(7)
	before := slowCycles.Load()
	tr := utiltrace.New("Scheduling", utiltrace.Field{Key: "namespace", Value: "ns"}, utiltrace.Field{Key: "name", Value: "p"})
	tr.LogIfLong(0) // threshold 0: always logged, as a cycle of 100 ms is with 100 ms
	if got := slowCycles.Load() - before; got != 1 {
		t.Fatalf("counted %d logged traces, want 1", got)
	}
	if got := rand.Int31(); got != want {
		t.Errorf("after the logged trace rand.Int31() = %d, want %d (the second draw after rand.Seed(7))", got, want)
	}

	before = slowCycles.Load()
	tr = utiltrace.New("Scheduling")
	tr.LogIfLong(time.Hour) // a fast cycle: not logged, no draw
	if got := slowCycles.Load() - before; got != 0 {
		t.Errorf("a trace under its threshold counted %d", got)
	}
}

// runReplay loads testdata/replay/cluster.yaml and replays events (a file) with the
// v1beta3 default profile, as `goref replay` does.
func runReplay(t *testing.T, cluster, events string, until int64, hasUntil bool) *replayResult {
	t.Helper()
	evs, err := readReplayEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	in, err := loadInputs([]string{cluster})
	if err != nil {
		t.Fatal(err)
	}
	r, err := newReplay(in, scoreOptions{ConfigFile: "testdata/filters/default-v1beta3.yaml.cfg", Seed: 1}, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.h.close)
	res, err := r.run(context.Background(), evs, until, hasUntil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestReplay: testdata/replay through the real PriorityQueue on the fake clock. The
// expectations follow v1.23's scheduling_queue.go (backoff 1 s doubled per attempt,
// max 10 s; flushBackoffQCompleted every 1 s, flushUnschedulableQLeftover every 30 s
// moving pods that failed more than 60 s ago; NodeResourcesFit registers Pod/Delete and
// Node/Add):
//
//   - t=0: p1, p2, p3 are added at 0, 1, 2 ns; p1 (3 ns) and p2 (4 ns) fill node a; p3
//     (5 ns) fails on NodeResourcesFit and goes to unschedulableQ (no move request since
//     its pop: AssignedPodAdded of p2's bind set moveRequestCycle to 2 < 3).
//   - t=4.5: big (2 CPU) is added (4.5 s) and fails at 4.5 s + 1 ns: unschedulableQ.
//   - t=5: deleting p1 moves both (AssignedPodDelete matches NodeResourcesFit): p3, whose
//     1 s backoff ended at 1 s + 5 ns, to activeQ; big, backing off until 5.5 s + 1 ns,
//     to podBackoffQ. p3 is retried at once and takes p1's CPU.
//   - t=6: the 1 s flush moves big to activeQ; it fails again (attempt 2).
//   - no event for big until t=95: the leftover flush at 60 s sees 54 s (not > 60 s),
//     the one at 90 s sees 84 s and moves big (UnschedulableTimeout); attempt 3 fails.
//   - t=95: node c (1 CPU) is added: preCheckForNode(c) says big does not fit, no move.
//   - t=100: node b (2 CPU) is added: big (backoff 4 s after attempt 3, from 90 s: done)
//     goes to activeQ and lands on b, the only feasible node of 3.
//
// Nothing is left: the replay stops right after (endNs 100 s + 1 ns). The pod of an
// unknown scheduler is never queued nor pending.
func TestReplay(t *testing.T) {
	type want struct {
		ns      int64
		pod     string
		attempt int
		cycle   int64
		host    string // "" for none
		plugins string
	}
	const s = int64(time.Second)
	all := []want{
		{3, "p1", 1, 1, "a", ""},
		{4, "p2", 1, 2, "a", ""},
		{5, "p3", 1, 3, "", "NodeResourcesFit"},
		{4*s + s/2 + 1, "big", 1, 4, "", "NodeResourcesFit"},
		{5 * s, "p3", 2, 5, "a", ""},
		{6 * s, "big", 2, 6, "", "NodeResourcesFit"},
		{90 * s, "big", 3, 7, "", "NodeResourcesFit"},
		{100 * s, "big", 4, 8, "b", ""},
	}
	check := func(res *replayResult, ws []want, pending []string, endNs int64) {
		t.Helper()
		if len(res.Attempts) != len(ws) {
			t.Fatalf("%d attempts, want %d: %+v", len(res.Attempts), len(ws), res.Attempts)
		}
		for i, w := range ws {
			a := res.Attempts[i]
			host := ""
			if a.Host != nil {
				host = *a.Host
			}
			if a.TimeNs != w.ns || string(a.Time) != formatSeconds(w.ns) || a.Pod != "default/"+w.pod || a.Attempt != w.attempt ||
				a.Cycle != w.cycle || host != w.host || strings.Join(a.UnschedulablePlugins, ",") != w.plugins {
				t.Errorf("attempt %d: %s %d ns %s attempt %d cycle %d host %q plugins %v, want %+v",
					i, a.Time, a.TimeNs, a.Pod, a.Attempt, a.Cycle, host, a.UnschedulablePlugins, w)
			}
			if (a.Error == nil) != (a.Host != nil) {
				t.Errorf("attempt %d: host %v with error %v", i, a.Host, a.Error)
			}
		}
		if !reflect.DeepEqual(res.Pending, pending) || res.EndNs != endNs {
			t.Errorf("pending %v endNs %d, want %v %d", res.Pending, res.EndNs, pending, endNs)
		}
	}
	res := runReplay(t, "testdata/replay/cluster.yaml", "testdata/replay/events.jsonl", 0, false)
	check(res, all, []string{}, 100*s+1)
	if msg := "0/1 nodes are available: 1 Insufficient cpu."; *res.Attempts[6].Error != msg {
		t.Errorf("big at 90 s: error %q, want %q", *res.Attempts[6].Error, msg)
	}
	if a := res.Attempts[7]; a.FeasibleNodes != 1 || a.EvaluatedNodes != 3 {
		t.Errorf("big at 100 s: feasible %d evaluated %d, want 1 of 3", a.FeasibleNodes, a.EvaluatedNodes)
	}

	// --until 99: node b never comes; the clock stops at the last flush time <= 99 s.
	check(runReplay(t, "testdata/replay/cluster.yaml", "testdata/replay/events.jsonl", 99*s, true),
		all[:7], []string{"default/big"}, 99*s)

	// Without the delete at t=5 (and node b), p3 and big stay in unschedulableQ until the
	// leftover flush at 90 s (p3 failed at 5 ns: 60 s later is not more than 60 s), and
	// fail again in priority-then-timestamp order (p3's timestamp is older). Node c at
	// 95 s: preCheckForNode passes p3 (1 CPU), not big; p3 lands on c.
	dir := t.TempDir()
	ev := filepath.Join(dir, "e.jsonl")
	data, err := os.ReadFile("testdata/replay/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if err := os.WriteFile(ev, []byte(lines[0]+"\n"+lines[2]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check(runReplay(t, "testdata/replay/cluster.yaml", ev, 0, false), []want{
		all[0], all[1], all[2], all[3],
		{90 * s, "p3", 2, 5, "", "NodeResourcesFit"},
		{90*s + 1, "big", 2, 6, "", "NodeResourcesFit"},
		{95 * s, "p3", 3, 7, "c", ""},
	}, []string{"default/big"}, 95*s+1)
}

func TestReplaySeconds(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-0": 0, "4.5": 4_500_000_000, "1e-9": 1, "15E-1": 1_500_000_000,
		"1.500000000": 1_500_000_000, "100.000000001": 100_000_000_001} {
		if got, err := parseSeconds(in); err != nil || got != want {
			t.Errorf("parseSeconds(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "1.0000000001", "0x10", "1/2", "1e999999", "", ".5", "1e10"} {
		if got, err := parseSeconds(in); err == nil {
			t.Errorf("parseSeconds(%q) = %d, want an error", in, got)
		}
	}
	for ns, want := range map[int64]string{0: "0", 3: "0.000000003", 4_500_000_001: "4.500000001", 90_000_000_000: "90", 1_250_000_000: "1.25"} {
		if got := formatSeconds(ns); got != want {
			t.Errorf("formatSeconds(%d) = %s, want %s", ns, got, want)
		}
	}
}

func TestReadReplayEventsErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"time":1,"op":"schedule","pod":"a/b"}`, "unknown op"},
		{`{"op":"delete","pod":"a/b"}`, `no "time"`},
		{`{"time":"1","op":"delete","pod":"a/b"}`, "must be a number"},
		{`{"time":0.5,"op":"delete","pod":"a/b"}`, "before the previous line"},
		{`{"time":2,"op":"addNode","node":"n"}`, "must be an object"},
	} {
		p := filepath.Join(t.TempDir(), "e.jsonl")
		os.WriteFile(p, []byte(`{"time":1,"op":"removeNode","node":"x"}`+"\n"+c.line+"\n"), 0o644)
		_, err := readReplayEvents(p)
		var ie *inputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%s: error %v, want an input error with %q at line 2", c.line, err, c.want)
		}
	}
}
