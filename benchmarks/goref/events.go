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
	"k8s.io/kubernetes/pkg/scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/internal/cache"
)

// eventOp is one line of an events file. Pod and Node are a name (a JSON string) or an
// object, as the operation wants.
type eventOp struct {
	Op       string          `json:"op"`
	Pod      json.RawMessage `json:"pod"`
	Node     json.RawMessage `json:"node"`
	Capacity json.RawMessage `json:"capacity"`
	line     int
}

// readEventLines reads an events file (path as --events names it) and hands each line
// but blank ones, trimmed, with its number to each; an error of each, prefixed with the
// file and the line, ends the reading.
func readEventLines(path string, each func(n int, line []byte) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return inputErrorf("--events %s: %v", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := each(n, line); err != nil {
			return inputErrorf("--events %s: line %d: %v", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return inputErrorf("--events %s: %v", path, err)
	}
	return nil
}

// readEvents parses an events file (blank lines are skipped) and checks each line's
// operation and the kind of its operand.
func readEvents(path string) ([]eventOp, error) {
	var ops []eventOp
	err := readEventLines(path, func(n int, line []byte) error {
		op := eventOp{line: n}
		if err := json.Unmarshal(line, &op); err != nil {
			return fmt.Errorf("malformed JSON: %v", err)
		}
		if err := op.check(); err != nil {
			return err
		}
		ops = append(ops, op)
		return nil
	})
	if err != nil {
		return nil, err
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
		"addCapacity": {"capacity", true}, "updateCapacity": {"capacity", true},
		"deleteCapacity": {"capacity", false},
	}
	w, ok := want[op.Op]
	if !ok {
		return fmt.Errorf("unknown op %q (want schedule, delete, addPod, addNode, removeNode, addCapacity, updateCapacity or deleteCapacity)", op.Op)
	}
	raw := op.Pod
	switch w.field {
	case "node":
		raw = op.Node
	case "capacity":
		raw = op.Capacity
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
	switch op.Op {
	case "removeNode":
		raw = op.Node
	case "deleteCapacity":
		raw = op.Capacity
	}
	var s string
	_ = json.Unmarshal(raw, &s) // checked by check
	return s
}

// clusterView is the informers' view of the cluster that an events script (eventRun)
// and a replay (replayRun) keep besides the scheduler cache: the pods and nodes known by
// name, and which pods are pending; its methods are the cache calls of the informers'
// event handlers and the checks before them.
type clusterView struct {
	cache   internalcache.Cache // the harness's scheduler cache
	pods    map[string]*v1.Pod  // every pod the cache or the pending set holds, by ns/name
	pending map[string]bool     // pods without a node, not scheduled yet (the value is the owner's)
	nodes   map[string]*v1.Node // the nodes in the cache, by name
}

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

// newClusterView is the view of the input's nodes and bound pods (already in cache).
func newClusterView(cache internalcache.Cache, in *inputSet) *clusterView {
	c := &clusterView{cache: cache, pods: map[string]*v1.Pod{}, pending: map[string]bool{}, nodes: map[string]*v1.Node{}}
	for _, n := range in.Nodes {
		c.nodes[n.Name] = n
	}
	for _, p := range in.BoundPods {
		c.pods[podKey(p)] = p
	}
	return c
}

// decodeNewPod decodes an added pod as the input loader does (nil, and no error, for a
// pod the loader would skip) and checks that its name is new.
func (c *clusterView) decodeNewPod(raw json.RawMessage, line int) (*podAt, error) {
	_, pods, err := decodeObject(raw, "Pod", line)
	if err != nil || len(pods) == 0 {
		return nil, err
	}
	name := podKey(pods[0].pod)
	if _, dup := c.pods[name]; dup {
		return nil, fmt.Errorf("pod %s exists already", name)
	}
	return &pods[0], nil
}

// addBoundPod is cache.AddPod of a pod with spec.nodeName (also when that node is
// absent: the cache keeps it for the node's NodeInfo).
func (c *clusterView) addBoundPod(p *v1.Pod) error {
	if err := c.cache.AddPod(p); err != nil {
		return err
	}
	c.pods[podKey(p)] = p
	return nil
}

// takePod drops pod name from the view. A pending pod leaves the pending set (pending,
// and queued is its value there); a bound one is then for removeBoundPod.
func (c *clusterView) takePod(name string) (p *v1.Pod, pending, queued bool, err error) {
	p, ok := c.pods[name]
	if !ok {
		return nil, false, false, fmt.Errorf("unknown pod %s", name)
	}
	delete(c.pods, name)
	if queued, pending = c.pending[name]; pending {
		delete(c.pending, name)
	}
	return p, pending, queued, nil
}

// removeBoundPod is cache.RemovePod of the pod as the cache holds it (assumed or bound),
// which may sit on a removed node.
func (c *clusterView) removeBoundPod(p *v1.Pod) error {
	cached, err := c.cache.GetPod(p)
	if err != nil {
		return err
	}
	return c.cache.RemovePod(cached)
}

// addNodeJSON is cache.AddNode of a new node (its name not in the cache's node tree),
// given as an object of an events file; it returns the NodeInfo the cache returns.
func (c *clusterView) addNodeJSON(raw json.RawMessage, line int) (*framework.NodeInfo, error) {
	in, _, err := decodeObject(raw, "Node", line)
	if err != nil {
		return nil, err
	}
	n := in.Nodes[0]
	if _, dup := c.nodes[n.Name]; dup {
		return nil, fmt.Errorf("node %s exists already", n.Name)
	}
	info := c.cache.AddNode(n)
	c.nodes[n.Name] = n
	return info, nil
}

// removeNodeNamed is cache.RemoveNode: the node leaves the node tree (and its zone with
// its last node); pods bound to it stay in the cache, uncounted until a node of that
// name is added again or they are deleted.
func (c *clusterView) removeNodeNamed(name string) error {
	n, ok := c.nodes[name]
	if !ok {
		return fmt.Errorf("unknown node %s", name)
	}
	delete(c.nodes, name)
	return c.cache.RemoveNode(n)
}

// eventRun is the state an events script acts on: the simulator and the view of the
// cluster (its pending pods all true).
type eventRun struct {
	sim *simulator
	*clusterView
}

func newEventRun(sim *simulator, in *inputSet) *eventRun {
	e := &eventRun{sim: sim, clusterView: newClusterView(sim.h.cache, in)}
	for _, p := range in.PendingPods {
		e.pods[podKey(p)] = p
		e.pending[podKey(p)] = true
	}
	// --preemption: a victim the scheduler deleted leaves the view too
	sim.onDeleted = func(p *v1.Pod) { _, _, _, _ = e.takePod(podKey(p)) }
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
		_, err := e.addNodeJSON(op.Node, op.line)
		return err
	case "addCapacity", "updateCapacity", "deleteCapacity":
		return e.sim.h.writeCapacity(context.Background(), op)
	default: // removeNode
		return e.removeNodeNamed(op.name())
	}
}

// schedule is one simulate step of a pending pod; a pod that fits is no longer pending
// (a pod that fits nowhere stays pending and may be scheduled again).
func (e *eventRun) schedule(ctx context.Context, name string, yield func(resultJSON) error) error {
	if !e.pending[name] {
		return fmt.Errorf("pod %s is not pending (unknown, deleted or already scheduled)", name)
	}
	placed, err := e.sim.attempt(ctx, e.pods[name], yield)
	if err != nil {
		return err
	}
	if placed {
		delete(e.pending, name)
	}
	return nil
}

// deletePod is the informer's delete: cache.RemovePod of the pod the cache holds (assumed
// by a schedule operation, or bound); a pending pod just leaves the pending set.
func (e *eventRun) deletePod(name string) error {
	p, pending, _, err := e.takePod(name)
	if err != nil {
		return err
	}
	if pending {
		if m := e.sim.h.mirror; m != nil {
			e.sim.h.nominator.DeleteNominatedPodIfExists(p) // as the queue's Delete
			delete(e.sim.latest, p.UID)
			return m.remove(p)
		}
		return nil
	}
	if err := e.removeBoundPod(p); err != nil {
		return err
	}
	if m := e.sim.h.mirror; m != nil {
		return m.remove(p)
	}
	return nil
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

// addPod is the informer's add: a pod with spec.nodeName goes to cache.AddPod, one
// without it joins the pending pods. Pods the scheduler would not see (phase Succeeded
// or Failed) or not schedule (pending and being deleted) change nothing, as when loading.
func (e *eventRun) addPod(raw json.RawMessage, line int) error {
	pa, err := e.decodeNewPod(raw, line)
	if pa == nil {
		return err
	}
	p := pa.pod
	switch {
	case p.Spec.NodeName != "":
		if err := e.addBoundPod(p); err != nil {
			return err
		}
	case p.DeletionTimestamp != nil:
		return nil
	default:
		e.pods[podKey(p)] = p
		e.pending[podKey(p)] = true
	}
	if m := e.sim.h.mirror; m != nil {
		if err := m.create(p); err != nil {
			return err
		}
		if p.Spec.NodeName == "" {
			e.sim.h.nominator.AddNominatedPod(framework.NewPodInfo(p), nil) // as the queue's Add
		}
	}
	// the ephemeral volume controller's claims (ephemeral.go)
	return e.sim.h.createEphemeralClaims(context.Background(), p)
}
