package main

// goref simulate --events FILE: a script of cluster events applied in order to the real
// scheduler cache of `goref simulate`, as a running kube-scheduler's informers and
// scheduling loop would apply them. FILE is JSON Lines, one operation per line:
//
//	{"op":"schedule","pod":"ns/name"}   one simulate step (Schedule, then assume/Reserve/Permit)
//	{"op":"delete","pod":"ns/name"}     cache.RemovePod of the pod as the cache holds it
//	{"op":"addNode","node":{...}}       cache.AddNode
//	{"op":"removeNode","node":"name"}   cache.RemoveNode
//	{"op":"addPod","pod":{...}}         cache.AddPod (spec.nodeName set) or a new pending pod
//
// Each schedule operation gives one result object, in operation order.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// eventOp is one line of an events file. Pod and Node are a name (a JSON string) or an
// object, as the operation wants.
type eventOp struct {
	Op   string          `json:"op"`
	Pod  json.RawMessage `json:"pod"`
	Node json.RawMessage `json:"node"`
	line int
}

// readEvents parses an events file (blank lines are skipped) and checks each line's
// operation and the kind of its operand.
func readEvents(path string) ([]eventOp, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputErrorf("--events %s: %v", path, err)
	}
	var ops []eventOp
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		op := eventOp{line: n}
		if err := json.Unmarshal(line, &op); err != nil {
			return nil, inputErrorf("--events %s: line %d: malformed JSON: %v", path, n, err)
		}
		if err := op.check(); err != nil {
			return nil, inputErrorf("--events %s: line %d: %v", path, n, err)
		}
		ops = append(ops, op)
	}
	if err := sc.Err(); err != nil {
		return nil, inputErrorf("--events %s: %v", path, err)
	}
	return ops, nil
}

// check: the operation is known and its operand is a string or an object as it wants.
func (op *eventOp) check() error {
	want := map[string]struct {
		field  string
		object bool
	}{
		"schedule": {"pod", false}, "delete": {"pod", false}, "addPod": {"pod", true},
		"addNode": {"node", true}, "removeNode": {"node", false},
	}
	w, ok := want[op.Op]
	if !ok {
		return fmt.Errorf("unknown op %q (want schedule, delete, addPod, addNode or removeNode)", op.Op)
	}
	raw := op.Pod
	if w.field == "node" {
		raw = op.Node
	}
	raw = bytes.TrimSpace(raw)
	if w.object && (len(raw) == 0 || raw[0] != '{') {
		return fmt.Errorf("%s: %q must be an object", op.Op, w.field)
	}
	if !w.object {
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" {
			return fmt.Errorf("%s: %q must be a non-empty string", op.Op, w.field)
		}
	}
	return nil
}

// name is the operand of a schedule, delete or removeNode operation.
func (op *eventOp) name() string {
	raw := op.Pod
	if op.Op == "removeNode" {
		raw = op.Node
	}
	var s string
	_ = json.Unmarshal(raw, &s) // checked by check
	return s
}

// eventRun is the state an events script acts on besides the cache: the pods and nodes
// known by name (the informers' view), and which pods are still pending.
type eventRun struct {
	sim     *simulator
	pods    map[string]*v1.Pod  // every pod the cache or the pending set holds, by ns/name
	pending map[string]bool     // pods without a node, not scheduled yet
	nodes   map[string]*v1.Node // the nodes in the cache, by name
}

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

func newEventRun(sim *simulator, in *inputSet) *eventRun {
	e := &eventRun{sim: sim, pods: map[string]*v1.Pod{}, pending: map[string]bool{}, nodes: map[string]*v1.Node{}}
	for _, n := range in.Nodes {
		e.nodes[n.Name] = n
	}
	for _, p := range in.BoundPods {
		e.pods[podKey(p)] = p
	}
	for _, p := range in.PendingPods {
		e.pods[podKey(p)] = p
		e.pending[podKey(p)] = true
	}
	return e
}

// apply runs ops in order; yield gets the result of each schedule operation.
func (e *eventRun) apply(ctx context.Context, ops []eventOp, yield func(resultJSON) error) error {
	for _, op := range ops {
		if err := e.applyOne(ctx, op, yield); err != nil {
			return inputErrorf("--events: line %d (%s): %v", op.line, op.Op, err)
		}
	}
	return nil
}

func (e *eventRun) applyOne(ctx context.Context, op eventOp, yield func(resultJSON) error) error {
	switch op.Op {
	case "schedule":
		return e.schedule(ctx, op.name(), yield)
	case "delete":
		return e.deletePod(op.name())
	case "addPod":
		return e.addPod(op.Pod, op.line)
	case "addNode":
		return e.addNode(op.Node, op.line)
	default: // removeNode
		return e.removeNode(op.name())
	}
}

// schedule is one simulate step of a pending pod; a pod that fits is no longer pending
// (a pod that fits nowhere stays pending and may be scheduled again).
func (e *eventRun) schedule(ctx context.Context, name string, yield func(resultJSON) error) error {
	if !e.pending[name] {
		return fmt.Errorf("pod %s is not pending (unknown, deleted or already scheduled)", name)
	}
	r, err := e.sim.step(ctx, e.pods[name])
	if err != nil {
		return err
	}
	if r.Host != nil {
		delete(e.pending, name)
	}
	return yield(r)
}

// deletePod is the informer's delete: cache.RemovePod of the pod the cache holds (assumed
// by a schedule operation, or bound), which may sit on a removed node; a pending pod
// just leaves the pending set.
func (e *eventRun) deletePod(name string) error {
	p, ok := e.pods[name]
	if !ok {
		return fmt.Errorf("unknown pod %s", name)
	}
	delete(e.pods, name)
	if e.pending[name] {
		delete(e.pending, name)
		return nil
	}
	cached, err := e.sim.h.cache.GetPod(p)
	if err != nil {
		return err
	}
	return e.sim.h.cache.RemovePod(cached)
}

// decodeObject validates one object as the input loader does (kind defaulted to kind)
// and returns what the loader kept of it.
func decodeObject(raw json.RawMessage, kind string, line int) (*inputSet, []podAt, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj interface{}
	if err := dec.Decode(&obj); err != nil {
		return nil, nil, err
	}
	if m, ok := obj.(map[string]interface{}); ok {
		if k, has := m["kind"]; has && k != kind {
			return nil, nil, fmt.Errorf("a %s, not a %v", kind, k)
		}
	}
	ld := &loader{in: &inputSet{SkippedKinds: map[string]int{}}, seen: map[string]string{}, uids: map[types.UID]string{}}
	if err := ld.addValue(obj, location{file: "events", item: fmt.Sprintf("line %d", line)}, kind); err != nil {
		return nil, nil, err
	}
	return ld.in, ld.pods, nil
}

// addPod is the informer's add: a pod with spec.nodeName goes to cache.AddPod (also
// when that node is absent: the cache keeps it for the node's NodeInfo), one without it
// joins the pending pods. Pods the scheduler would not see (phase Succeeded or Failed)
// or not schedule (pending and being deleted) change nothing, as when loading.
func (e *eventRun) addPod(raw json.RawMessage, line int) error {
	_, pods, err := decodeObject(raw, "Pod", line)
	if err != nil || len(pods) == 0 {
		return err
	}
	p := pods[0].pod
	name := podKey(p)
	if _, dup := e.pods[name]; dup {
		return fmt.Errorf("pod %s exists already", name)
	}
	switch {
	case p.Spec.NodeName != "":
		if err := e.sim.h.cache.AddPod(p); err != nil {
			return err
		}
	case p.DeletionTimestamp != nil:
		return nil
	default:
		e.pending[name] = true
	}
	e.pods[name] = p
	return nil
}

// addNode is cache.AddNode of a new node (its name not in the cache's node tree).
func (e *eventRun) addNode(raw json.RawMessage, line int) error {
	in, _, err := decodeObject(raw, "Node", line)
	if err != nil {
		return err
	}
	n := in.Nodes[0]
	if _, dup := e.nodes[n.Name]; dup {
		return fmt.Errorf("node %s exists already", n.Name)
	}
	e.sim.h.cache.AddNode(n)
	e.nodes[n.Name] = n
	return nil
}

// removeNode is cache.RemoveNode: the node leaves the node tree (and its zone with its
// last node); pods bound to it stay in the cache, uncounted until a node of that name
// is added again or they are deleted.
func (e *eventRun) removeNode(name string) error {
	n, ok := e.nodes[name]
	if !ok {
		return fmt.Errorf("unknown node %s", name)
	}
	delete(e.nodes, name)
	return e.sim.h.cache.RemoveNode(n)
}
