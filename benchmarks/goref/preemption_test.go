package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

const defaultConfig = "testdata/filters/default-v1beta3.yaml.cfg"

// hiPod: a pending pod of priority 100 wanting 1.5 CPU.
const hiPod = "---\nkind: Pod\nmetadata: {name: hi}\nspec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}\n"

// nodeAFull: node a full with l1 (priority 1, 1.5 CPU).
const nodeAFull = nodeA + "---\nkind: Pod\nmetadata: {name: l1}\nspec: {nodeName: a, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}\n"

// nodeA and twoNodes: nodes a (and b) of 2 CPU, 4Gi, 10 pods.
const (
	nodeA    = "kind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}}\n"
	twoNodes = nodeA + "---\n" + "kind: Node\nmetadata: {name: b}\nstatus: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}}\n"
)

// writeCluster writes a YAML cluster to a temporary directory and returns its path.
func writeCluster(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runPreemption runs `goref simulate --preemption [--retry-nominated]` with the v1beta3
// default profile over the cluster; it returns the results and the harness.
func runPreemption(t *testing.T, doc string, retry bool, seed int64) ([]resultJSON, *harness) {
	t.Helper()
	in, h := testHarness(t, []string{writeCluster(t, doc)}, scoreOptions{ConfigFile: defaultConfig, Seed: seed, Preemption: true})
	sim := newSimulator(h, false)
	sim.enablePreemption(in.PendingPods, retry)
	pods, err := queueOrder(h.plain, in.PendingPods)
	if err != nil {
		t.Fatal(err)
	}
	var out []resultJSON
	for _, p := range pods {
		if _, err := sim.attempt(context.Background(), p, func(r resultJSON) error {
			out = append(out, r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out, h
}

func victimNames(r resultJSON) []string {
	var names []string
	for _, v := range r.Victims {
		names = append(names, v.Name)
	}
	return names
}

// nodePods is the names of the pods the cache holds on node.
func nodePods(t *testing.T, h *harness, node string) []string {
	t.Helper()
	dump := h.cache.Dump()
	info := dump.Nodes[node]
	if info == nil {
		t.Fatalf("no node %s in the cache", node)
	}
	var names []string
	for _, p := range info.Pods {
		names = append(names, p.Pod.Name)
	}
	return names
}

// overcommitted: two nodes of 2 CPU, each full with low-priority pods (l-a1, l-a2 of
// priority 1 and 2 on a; l-b of priority 1 on b); hi (priority 100) wants 1.5 CPU.
const overcommitted = twoNodes + `---
kind: Pod
metadata: {name: l-a1}
spec: {nodeName: a, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1}}}]}
status: {startTime: "2022-01-01T00:00:01Z"}
---
kind: Pod
metadata: {name: l-a2}
spec: {nodeName: a, priority: 2, containers: [{name: c, resources: {requests: {cpu: 1}}}]}
status: {startTime: "2022-01-01T00:00:02Z"}
---
kind: Pod
metadata: {name: l-b}
spec: {nodeName: b, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1800m}}}]}
status: {startTime: "2022-01-01T00:00:03Z"}
` + hiPod

// TestPreemption: hi fits nowhere, DefaultPreemption nominates a node and evicts its
// victims through the clientset; the informer's deletion reaches the cache, and the
// immediate retry (--retry-nominated) places hi on its nominated node. Node a would need
// both of its pods evicted (priority 2 highest), node b one pod of priority 1: b wins on
// the lowest highest-priority victim.
func TestPreemption(t *testing.T) {
	for seed := int64(0); seed < 4; seed++ {
		rs, h := runPreemption(t, overcommitted, true, seed)
		if len(rs) != 2 {
			t.Fatalf("seed %d: %d results, want the failure and the retry", seed, len(rs))
		}
		r := rs[0]
		if r.Host != nil || r.preemptionJSON == nil || r.NominatedNode == nil || *r.NominatedNode != "b" ||
			!reflect.DeepEqual(victimNames(r), []string{"l-b"}) || r.Victims[0].Priority != 1 || r.PDBViolations != 0 {
			t.Fatalf("seed %d: first attempt %+v %+v", seed, r, r.preemptionJSON)
		}
		if *r.PostFilterCode != "Success" || !r.PreemptionDraw || *r.PreemptionNumCandidates != 2 ||
			len(r.PreemptionCandidates) != 2 || !reflect.DeepEqual(r.PreemptionTies, []string{"b"}) {
			t.Errorf("seed %d: PostFilter record %+v", seed, r.preemptionJSON)
		}
		// the offset is rand.Int31n(2): the candidates start at it
		if want := []string{"a", "b"}[*r.PreemptionOffset]; r.PreemptionCandidates[0] != want {
			t.Errorf("seed %d: offset %d, candidates %v", seed, *r.PreemptionOffset, r.PreemptionCandidates)
		}
		if rt := rs[1]; !rt.Retry || rt.Host == nil || *rt.Host != "b" || rt.EvaluatedNodes != 1 || rt.preemptionJSON != nil {
			t.Errorf("seed %d: retry %+v", seed, rt)
		}
		if got := nodePods(t, h, "b"); !reflect.DeepEqual(got, []string{"hi"}) {
			t.Errorf("seed %d: pods on b %v, want hi alone", seed, got)
		}
		if got := len(h.nominator.NominatedPodsForNode("b")); got != 0 {
			t.Errorf("seed %d: %d pods still nominated on b", seed, got)
		}
	}
}

// TestPreemptionWithoutRetry: hi stays pending and nominated; a later pod of lower
// priority does not take the room freed for it (RunFilterPluginsWithNominatedPods counts
// hi on b), one of higher priority does.
func TestPreemptionWithoutRetry(t *testing.T) {
	doc := overcommitted + `---
kind: Pod
metadata: {name: mid}
spec: {priority: 50, containers: [{name: c, resources: {requests: {cpu: 1}}}]}
---
kind: Pod
metadata: {name: top}
spec: {priority: 200, containers: [{name: c, resources: {requests: {cpu: 1}}}]}
`
	rs, h := runPreemption(t, strings.Replace(doc, "metadata: {name: top}", "metadata: {name: top}", 1), false, 1)
	var order []string
	for _, r := range rs {
		order = append(order, r.Pod)
	}
	if !reflect.DeepEqual(order, []string{"default/top", "default/hi", "default/mid"}) {
		t.Fatalf("order %v", order)
	}
	// top (1 CPU, priority 200) fits nowhere either: it evicts l-b (its victims: one pod
	// of priority 1 against two on a)
	if rs[0].NominatedNode == nil || *rs[0].NominatedNode != "b" {
		t.Fatalf("top: %+v", rs[0].preemptionJSON)
	}
	// hi: b is empty but top (200 >= 100) is nominated there: 1 + 1.5 > 2 CPU; a needs
	// l-a1 and l-a2 gone (1.5 CPU > 1 free after one)
	if r := rs[1]; r.NominatedNode == nil || *r.NominatedNode != "a" || !reflect.DeepEqual(victimNames(r), []string{"l-a2", "l-a1"}) {
		t.Errorf("hi: %+v %v", r.preemptionJSON, victimNames(r))
	}
	// mid (50): a has hi nominated (1.5), b has top (1): mid fits on b beside top
	if r := rs[2]; r.Host == nil || *r.Host != "b" {
		t.Errorf("mid: host %v error %v", r.Host, r.Error)
	}
	if got := len(h.nominator.NominatedPodsForNode("a")); got != 1 {
		t.Errorf("%d pods nominated on a, want hi", got)
	}
}

// TestNominatedPodBlocks: a pending pod nominated in the input (status.nominatedNodeName)
// is registered as the queue registers it; a pod of lower priority scheduled before it
// (an events script) sees it on its node in RunFilterPluginsWithNominatedPods and goes
// elsewhere; without --preemption nothing is nominated and it takes node a first.
func TestNominatedPodBlocks(t *testing.T) {
	doc := twoNodes + `---
kind: Pod
metadata: {name: nom}
spec: {priority: 10, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
status: {nominatedNodeName: a}
---
kind: Pod
metadata: {name: low}
spec: {priority: 1, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
`
	events := filepath.Join(t.TempDir(), "e.jsonl")
	os.WriteFile(events, []byte(`{"op":"schedule","pod":"default/low"}`+"\n"+`{"op":"schedule","pod":"default/nom"}`+"\n"), 0o644)
	ops, err := readEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	for _, preempt := range []bool{false, true} {
		for seed := int64(0); seed < 4; seed++ {
			in, h := testHarness(t, []string{writeCluster(t, doc)}, scoreOptions{ConfigFile: defaultConfig, Seed: seed, Preemption: preempt})
			sim := newSimulator(h, false)
			if preempt {
				sim.enablePreemption(in.PendingPods, false)
			}
			var rs []resultJSON
			if err := newEventRun(sim, in).apply(context.Background(), ops, func(r resultJSON) error {
				rs = append(rs, r)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if preempt {
				// low avoids a; nom is placed on a, its nominated node, evaluated first
				if *rs[0].Host != "b" || rs[0].FeasibleNodes != 1 || *rs[1].Host != "a" || rs[1].EvaluatedNodes != 1 {
					t.Errorf("seed %d: hosts %v, feasible %d, nom evaluated %d", seed, hosts(rs), rs[0].FeasibleNodes, rs[1].EvaluatedNodes)
				}
			} else if rs[0].FeasibleNodes != 2 {
				t.Errorf("without --preemption: low saw %d feasible nodes, want 2", rs[0].FeasibleNodes)
			}
		}
	}
}

// TestNominationCleared: hi preempts on a, where mid (lower priority) was nominated:
// prepareCandidate clears mid's nominatedNodeName with a status update, whose informer
// event reaches the nominator; mid then fits nowhere (hi is nominated on a) and finds no
// victim.
func TestNominationCleared(t *testing.T) {
	doc := nodeAFull + `---
kind: Pod
metadata: {name: mid}
spec: {priority: 50, containers: [{name: c, resources: {requests: {cpu: 1}}}]}
status: {nominatedNodeName: a}
` + hiPod
	rs, h := runPreemption(t, doc, false, 3)
	if len(rs) != 2 || rs[0].Pod != "default/hi" || rs[0].NominatedNode == nil || *rs[0].NominatedNode != "a" {
		t.Fatalf("hi: %+v", rs)
	}
	mid := rs[1]
	if mid.Host != nil || mid.NominatedNode != nil || *mid.PostFilterCode != "Unschedulable" ||
		!strings.Contains(mid.PostFilterMessage, "No victims found on node a for preemptor pod mid") {
		t.Errorf("mid: %+v", mid.preemptionJSON)
	}
	// mid was not evaluated on a first: its nomination was cleared before its cycle
	if mid.EvaluatedNodes != 0 {
		t.Errorf("mid: evaluated %d", mid.EvaluatedNodes)
	}
	var nominated []string
	for _, pi := range h.nominator.NominatedPodsForNode("a") {
		nominated = append(nominated, pi.Pod.Name)
	}
	if !reflect.DeepEqual(nominated, []string{"hi"}) {
		t.Errorf("nominated on a: %v, want hi", nominated)
	}
}

// TestPreemptionPolicyNever: a pod with preemptionPolicy Never is not eligible: PostFilter
// says Unschedulable, draws nothing, evicts nothing.
func TestPreemptionPolicyNever(t *testing.T) {
	doc := strings.Replace(overcommitted, "spec: {priority: 100,", "spec: {priority: 100, preemptionPolicy: Never,", 1)
	rs, h := runPreemption(t, doc, true, 1)
	if len(rs) != 1 {
		t.Fatalf("%d results", len(rs))
	}
	r := rs[0]
	if r.Host != nil || r.NominatedNode != nil || *r.PostFilterCode != "Unschedulable" || r.PreemptionDraw ||
		len(r.Victims) != 0 || len(r.PreemptionCandidates) != 0 {
		t.Errorf("%+v", r.preemptionJSON)
	}
	if got := nodePods(t, h, "b"); !reflect.DeepEqual(got, []string{"l-b"}) {
		t.Errorf("pods on b %v", got)
	}
}

// pdbCluster: a and b each hold one pod of priority 1 (1.5 CPU of 2); hi needs 1.5 CPU.
// A PDB (minAvailable 1, no status: computed) protects pa on a.
const pdbCluster = twoNodes + `---
kind: Pod
metadata: {name: pa, labels: {app: a}}
spec: {nodeName: a, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
status: {startTime: "2022-01-01T00:00:01Z"}
---
kind: Pod
metadata: {name: pb, labels: {app: b}}
spec: {nodeName: b, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
status: {startTime: "2022-01-01T00:00:01Z"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: protect-a}
spec: {minAvailable: 1, selector: {matchLabels: {app: a}}}
` + hiPod

// TestPreemptionPDB: a candidate without PDB violation is preferred (b), whatever the
// offset; when both nodes' pods are protected, the victim counts one violation; a
// v1beta1 PDB with an empty selector selects nothing (the API server's conversion).
func TestPreemptionPDB(t *testing.T) {
	for seed := int64(0); seed < 4; seed++ {
		rs, _ := runPreemption(t, pdbCluster, false, seed)
		if r := rs[0]; r.NominatedNode == nil || *r.NominatedNode != "b" || r.PDBViolations != 0 ||
			!reflect.DeepEqual(r.PreemptionCandidates, []string{"b", "a"}) || !reflect.DeepEqual(r.PreemptionTies, []string{"b"}) {
			t.Errorf("seed %d: %+v", seed, r.preemptionJSON)
		}
	}
	both := strings.Replace(pdbCluster, "minAvailable: 1, selector: {matchLabels: {app: a}}", "minAvailable: 2, selector: {matchExpressions: [{key: app, operator: Exists}]}", 1)
	rs, _ := runPreemption(t, both, false, 2)
	if r := rs[0]; r.NominatedNode == nil || r.PDBViolations != 1 || !reflect.DeepEqual(r.PreemptionTies, []string{"a", "b"}) {
		t.Errorf("both protected: %+v", r.preemptionJSON)
	}
	// minAvailable 1 of the 2 healthy pods: one disruption allowed, no violation
	one := strings.Replace(both, "minAvailable: 2", "minAvailable: 1", 1)
	rs, _ = runPreemption(t, one, false, 2)
	if r := rs[0]; r.NominatedNode == nil || r.PDBViolations != 0 || !reflect.DeepEqual(r.PreemptionCandidates, []string{"a", "b"}) {
		t.Errorf("one disruption allowed: %+v", r.preemptionJSON)
	}
	in, err := loadInputs([]string{writeCluster(t, one)})
	if err != nil {
		t.Fatal(err)
	}
	if err := computePDBStatuses(in); err != nil {
		t.Fatal(err)
	}
	if st := in.PDBs[0].Status; st.DisruptionsAllowed != 1 || st.CurrentHealthy != 2 || st.ExpectedPods != 2 {
		t.Errorf("status %+v", st)
	}
	beta := strings.Replace(pdbCluster, "apiVersion: policy/v1\n", "apiVersion: policy/v1beta1\n", 1)
	beta = strings.Replace(beta, "selector: {matchLabels: {app: a}}", "selector: {}", 1)
	rs, _ = runPreemption(t, beta, false, 0)
	if r := rs[0]; len(r.PreemptionTies) != 2 || r.PDBViolations != 0 {
		t.Errorf("v1beta1 empty selector: %+v", r.preemptionJSON)
	}
}

// TestPDBStatus: the disruption controller's status of PDBs given without one, over the
// input's pods: Ready when bound, running or without phase, and without a Ready
// condition saying otherwise; integer minAvailable counts the matching pods, percentages
// and maxUnavailable the replicas of their controllers (a pod without one counts for
// nothing); a pod whose controller is not in the input makes the sync fail (failSafe:
// 0 allowed); a given status is kept.
func TestPDBStatus(t *testing.T) {
	doc := `
kind: Node
metadata: {name: a}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, uid: rs-uid}
spec: {replicas: 4, selector: {matchLabels: {app: w}}}
---
kind: Pod
metadata: {name: w1, labels: {app: w}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, controller: true}]}
spec: {nodeName: a, containers: [{name: c}]}
---
kind: Pod
metadata: {name: w2, labels: {app: w}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, controller: true}]}
spec: {nodeName: a, containers: [{name: c}]}
status: {phase: Running}
---
kind: Pod
metadata: {name: w3, labels: {app: w}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, controller: true}]}
spec: {nodeName: a, containers: [{name: c}]}
status: {phase: Running, conditions: [{type: Ready, status: "False"}]}
---
kind: Pod
metadata: {name: w4, labels: {app: w}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, controller: true}]}
spec: {containers: [{name: c}]}
---
kind: Pod
metadata: {name: loose, labels: {app: l}}
spec: {nodeName: a, containers: [{name: c}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: int}
spec: {minAvailable: 1, selector: {matchLabels: {app: w}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pct}
spec: {maxUnavailable: 50%, selector: {matchLabels: {app: w}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: loose}
spec: {minAvailable: 50%, selector: {matchLabels: {app: l}}}
---
kind: Pod
metadata: {name: ghost, labels: {app: g}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: x, controller: true}]}
spec: {nodeName: a, containers: [{name: c}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ghost}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: g}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: given}
spec: {minAvailable: 1, selector: {matchLabels: {app: w}}}
status: {disruptionsAllowed: 7}
`
	in, err := loadInputs([]string{writeCluster(t, doc)})
	if err != nil {
		t.Fatal(err)
	}
	if err := computePDBStatuses(in); err != nil {
		t.Fatal(err)
	}
	want := map[string][4]int32{ // allowed, current healthy, desired healthy, expected
		"int":   {1, 2, 1, 4}, // w1, w2 ready; w3 not ready; w4 pending
		"pct":   {0, 2, 2, 4}, // 4 replicas, 50% unavailable: desired 2
		"loose": {0, 1, 0, 0}, // no controller: expected 0, so nothing allowed
		"ghost": {0, 0, 0, 0}, // its ReplicaSet is absent: failSafe
		"given": {7, 0, 0, 0},
	}
	for _, pdb := range in.PDBs {
		st := pdb.Status
		got := [4]int32{st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods}
		if got != want[pdb.Name] {
			t.Errorf("%s: %v, want %v", pdb.Name, got, want[pdb.Name])
		}
	}
	bad := strings.Replace(doc, "spec: {minAvailable: 1, selector: {matchLabels: {app: w}}}\n---", "spec: {minAvailable: -1, selector: {matchLabels: {app: w}}}\n---", 1)
	if _, err := loadInputs([]string{writeCluster(t, bad)}); err == nil || !strings.Contains(err.Error(), "spec.minAvailable") {
		t.Errorf("negative minAvailable: %v", err)
	}
}

// TestPreemptionTies: pickOneNodeForPreemption's criteria in order; a victim without
// status.startTime counts as the latest start (Go reads time.Now() for it).
func TestPreemptionTies(t *testing.T) {
	at := func(s int) *metav1.Time { tm := metav1.NewTime(time.Unix(int64(s), 0)); return &tm }
	pod := func(prio int32, start *metav1.Time) *v1.Pod {
		return &v1.Pod{Spec: v1.PodSpec{Priority: &prio}, Status: v1.PodStatus{StartTime: start}}
	}
	vs := func(viol int64, pods ...*v1.Pod) *extenderv1.Victims {
		return &extenderv1.Victims{Pods: pods, NumPDBViolations: viol}
	}
	cases := []struct {
		m    map[string]*extenderv1.Victims
		want []string
	}{
		{map[string]*extenderv1.Victims{"a": vs(1, pod(1, at(1))), "b": vs(0, pod(9, at(1))), "c": vs(0, pod(9, at(1)))}, []string{"b", "c"}},
		{map[string]*extenderv1.Victims{"a": vs(0, pod(5, at(1))), "b": vs(0, pod(3, at(1)), pod(3, at(1)))}, []string{"b"}},
		{map[string]*extenderv1.Victims{"a": vs(0, pod(3, at(1)), pod(1, at(1))), "b": vs(0, pod(3, at(1)), pod(2, at(1)))}, []string{"a"}},
		{map[string]*extenderv1.Victims{"a": vs(0, pod(3, at(1)), pod(-2, at(1))), "b": vs(0, pod(3, at(1)))}, []string{"b"}},
		{map[string]*extenderv1.Victims{"a": vs(0, pod(3, at(5))), "b": vs(0, pod(3, at(9))), "c": vs(0, pod(3, at(9)))}, []string{"b", "c"}},
		{map[string]*extenderv1.Victims{"a": vs(0, pod(3, at(5))), "b": vs(0, pod(3, nil)), "c": vs(0, pod(3, nil))}, []string{"b", "c"}},
		// the earliest start among the highest-priority victims, a missing one aside
		{map[string]*extenderv1.Victims{"a": vs(0, pod(3, nil), pod(3, at(4)), pod(1, at(1))), "b": vs(0, pod(3, at(5)), pod(3, at(6)), pod(1, at(1)))}, []string{"b"}},
	}
	for i, c := range cases {
		if got := preemptionTies(c.m); !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d: ties %v, want %v", i, got, c.want)
		}
	}
}

// TestExplain: score --explain reports what preemption would do for each pod that fits
// nowhere, and applies nothing: two identical preemptors get the same victims.
func TestExplain(t *testing.T) {
	doc := overcommitted + `---
kind: Pod
metadata: {name: hi2}
spec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}
`
	in, h := testHarness(t, []string{writeCluster(t, doc)}, scoreOptions{ConfigFile: defaultConfig, Seed: 1, Explain: true})
	var rs []resultJSON
	for _, p := range in.PendingPods {
		r, err := h.schedule(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		r.preemptionJSON = runPostFilter(context.Background(), h.fwk, h.recs.preemption, h.state, p, r.scheduleErr).json
		rs = append(rs, r)
	}
	for _, r := range rs {
		if r.NominatedNode == nil || *r.NominatedNode != "b" || !reflect.DeepEqual(victimNames(r), []string{"l-b"}) || !r.PreemptionDraw {
			t.Errorf("%s: %+v", r.Pod, r.preemptionJSON)
		}
	}
	if got := nodePods(t, h, "b"); !reflect.DeepEqual(got, []string{"l-b"}) {
		t.Errorf("pods on b after --explain: %v", got)
	}
}

// TestReplayPreemption: through the real queue, m (priority 5) preempts l1 at once and
// waits in podBackoffQ (the victim's deletion moved it there); hi (priority 100) arrives
// at 2 s, is popped before m and takes the room m was nominated for; m, retried, finds
// no victim (hi outranks it) and loses its nomination.
func TestReplayPreemption(t *testing.T) {
	doc := nodeAFull + `---
kind: Pod
metadata: {name: m}
spec: {priority: 5, containers: [{name: c, resources: {requests: {cpu: 1}}}]}
`
	dir := t.TempDir()
	ev := filepath.Join(dir, "e.jsonl")
	os.WriteFile(ev, []byte(`{"time": 2, "op": "addPod", "pod": {"metadata": {"name": "hi"}, "spec": {"priority": 100, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1500m"}}}]}}}`+"\n"), 0o644)
	evs, err := readReplayEvents(ev)
	if err != nil {
		t.Fatal(err)
	}
	in, err := loadInputs([]string{writeCluster(t, doc)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := newReplay(in, scoreOptions{ConfigFile: defaultConfig, Seed: 1, Preemption: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.h.close)
	res, err := r.run(context.Background(), evs, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		ns        int64
		pod, host string
		nominated string
		victims   string
	}
	s := int64(time.Second)
	wants := []want{{1, "m", "", "a", "l1"}, {2*s + 1, "hi", "a", "", ""}, {2*s + 2, "m", "", "", ""}}
	if len(res.Attempts) != len(wants) {
		t.Fatalf("%d attempts: %+v", len(res.Attempts), res.Attempts)
	}
	for i, w := range wants {
		a := res.Attempts[i]
		host, nom, vict := "", "", ""
		if a.Host != nil {
			host = *a.Host
		}
		if a.preemptionJSON != nil {
			if a.NominatedNode != nil {
				nom = *a.NominatedNode
			}
			for _, v := range a.Victims {
				vict += v.Name
			}
		}
		if a.TimeNs != w.ns || a.Pod != "default/"+w.pod || host != w.host || nom != w.nominated || vict != w.victims {
			t.Errorf("attempt %d: %d %s host %q nominated %q victims %q, want %+v", i, a.TimeNs, a.Pod, host, nom, vict, w)
		}
	}
	if !reflect.DeepEqual(res.Pending, []string{"default/m"}) {
		t.Errorf("pending %v", res.Pending)
	}
}

// TestBenchPreemptionShape: the dumped shape is the benchmark's: every preemptor
// preempts three init pods of its node and lands there on the retry.
func TestBenchPreemptionShape(t *testing.T) {
	p := filepath.Join(t.TempDir(), "shape.json")
	if err := preemptionShape(p, 6, 24, 6); err != nil {
		t.Fatal(err)
	}
	in, err := loadInputs([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Nodes) != 6 || len(in.BoundPods) != 24 || len(in.PendingPods) != 6 {
		t.Fatalf("%d nodes, %d bound, %d pending", len(in.Nodes), len(in.BoundPods), len(in.PendingPods))
	}
	var res benchPreemptionResult
	if _, err := benchPreemptionRun(in, scoreOptions{DefaultProfile: true, Plain: true, Preemption: true}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Nominated != 6 || res.Bound != 6 || res.Victims != 18 || res.CyclesPerPreemptor != 2 {
		t.Errorf("%+v", res)
	}
}
