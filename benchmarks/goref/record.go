package main

// Recording wrappers. Nothing here re-implements scheduler logic: every call is
// delegated unchanged to the real plugin or framework, and the values that pass
// through are copied aside.
//
//   - wrapRegistry wraps each in-tree factory: a plugin that implements ScorePlugin is
//     returned inside a wrapper that implements exactly the same extension-point
//     interfaces (PreFilter, Filter, PreScore, Reserve, PreBind, ...), so the framework
//     builds the same per-extension-point lists (MultiPoint expansion included). The
//     wrapper records the raw Score per node and the list after NormalizeScore;
//     ScoreExtensions() is nil exactly when the inner plugin's is nil.
//   - recordingFramework embeds framework.Framework and intercepts RunScorePlugins
//     (nodes passed in, weighted per-plugin scores returned) and
//     RunFilterPluginsWithNominatedPods (order in which nodes passed filtering).

import (
	"context"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// recorder holds what one score plugin returned during the current cycle.
type recorder struct {
	inner framework.ScorePlugin

	mu         sync.Mutex
	raw        map[string]int64
	normalized map[string]int64
	hasNorm    bool // NormalizeScore ran this cycle
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.raw = map[string]int64{}
	r.normalized = map[string]int64{}
	r.hasNorm = false
	r.mu.Unlock()
}

func (r *recorder) Name() string { return r.inner.Name() }

// Score delegates and records the raw score of nodeName.
func (r *recorder) Score(ctx context.Context, state *framework.CycleState, p *v1.Pod, nodeName string) (int64, *framework.Status) {
	s, st := r.inner.Score(ctx, state, p, nodeName)
	r.mu.Lock()
	r.raw[nodeName] = s
	r.mu.Unlock()
	return s, st
}

// ScoreExtensions is nil exactly when the inner plugin's is nil.
func (r *recorder) ScoreExtensions() framework.ScoreExtensions {
	ext := r.inner.ScoreExtensions()
	if ext == nil {
		return nil
	}
	return &normRecorder{r: r, inner: ext}
}

type normRecorder struct {
	r     *recorder
	inner framework.ScoreExtensions
}

// NormalizeScore delegates and records the list as the plugin left it.
func (n *normRecorder) NormalizeScore(ctx context.Context, state *framework.CycleState, p *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	st := n.inner.NormalizeScore(ctx, state, p, scores)
	n.r.mu.Lock()
	for _, s := range scores {
		n.r.normalized[s.Name] = s.Score
	}
	n.r.hasNorm = true
	n.r.mu.Unlock()
	return st
}

// Delegating parts, one per extension-point interface a score plugin may also have.
// None has a Name method, so embedding several of them beside *recorder is unambiguous.

type preFilterPart struct{ p framework.PreFilterPlugin }

func (w preFilterPart) PreFilter(ctx context.Context, state *framework.CycleState, p *v1.Pod) *framework.Status {
	return w.p.PreFilter(ctx, state, p)
}
func (w preFilterPart) PreFilterExtensions() framework.PreFilterExtensions {
	return w.p.PreFilterExtensions()
}

type filterPart struct{ p framework.FilterPlugin }

func (w filterPart) Filter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	return w.p.Filter(ctx, state, pod, nodeInfo)
}

type preScorePart struct{ p framework.PreScorePlugin }

func (w preScorePart) PreScore(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*v1.Node) *framework.Status {
	return w.p.PreScore(ctx, state, pod, nodes)
}

type reservePart struct{ p framework.ReservePlugin }

func (w reservePart) Reserve(ctx context.Context, state *framework.CycleState, p *v1.Pod, nodeName string) *framework.Status {
	return w.p.Reserve(ctx, state, p, nodeName)
}
func (w reservePart) Unreserve(ctx context.Context, state *framework.CycleState, p *v1.Pod, nodeName string) {
	w.p.Unreserve(ctx, state, p, nodeName)
}

type preBindPart struct{ p framework.PreBindPlugin }

func (w preBindPart) PreBind(ctx context.Context, state *framework.CycleState, p *v1.Pod, nodeName string) *framework.Status {
	return w.p.PreBind(ctx, state, p, nodeName)
}

type enqueuePart struct{ p framework.EnqueueExtensions }

func (w enqueuePart) EventsToRegister() []framework.ClusterEvent { return w.p.EventsToRegister() }

// The wrapper types: one per interface set that in-tree score plugins of v1.23 have.
// (S = Score, PS = PreScore, F = Filter, PF = PreFilter, R = Reserve, PB = PreBind,
// E = EnqueueExtensions.)
type wS struct{ *recorder } // ImageLocality, NodeResourcesBalancedAllocation
type wPS struct {           // SelectorSpread
	*recorder
	preScorePart
}
type wFPSE struct { // TaintToleration
	*recorder
	filterPart
	preScorePart
	enqueuePart
}
type wPFFE struct { // NodeResourcesFit
	*recorder
	preFilterPart
	filterPart
	enqueuePart
}
type wPFFPSE struct { // PodTopologySpread, InterPodAffinity, NodeAffinity
	*recorder
	preFilterPart
	filterPart
	preScorePart
	enqueuePart
}
type wPFFRPBE struct { // VolumeBinding
	*recorder
	preFilterPart
	filterPart
	reservePart
	preBindPart
	enqueuePart
}

// Interface bits, for matching a wrapper to its inner plugin.
const (
	ifPreFilter = 1 << iota
	ifFilter
	ifPostFilter
	ifPreScore
	ifScore
	ifReserve
	ifPermit
	ifPreBind
	ifBind
	ifPostBind
	ifQueueSort
	ifEnqueue
)

func interfaceBits(p framework.Plugin) int {
	b := 0
	if _, ok := p.(framework.PreFilterPlugin); ok {
		b |= ifPreFilter
	}
	if _, ok := p.(framework.FilterPlugin); ok {
		b |= ifFilter
	}
	if _, ok := p.(framework.PostFilterPlugin); ok {
		b |= ifPostFilter
	}
	if _, ok := p.(framework.PreScorePlugin); ok {
		b |= ifPreScore
	}
	if _, ok := p.(framework.ScorePlugin); ok {
		b |= ifScore
	}
	if _, ok := p.(framework.ReservePlugin); ok {
		b |= ifReserve
	}
	if _, ok := p.(framework.PermitPlugin); ok {
		b |= ifPermit
	}
	if _, ok := p.(framework.PreBindPlugin); ok {
		b |= ifPreBind
	}
	if _, ok := p.(framework.BindPlugin); ok {
		b |= ifBind
	}
	if _, ok := p.(framework.PostBindPlugin); ok {
		b |= ifPostBind
	}
	if _, ok := p.(framework.QueueSortPlugin); ok {
		b |= ifQueueSort
	}
	if _, ok := p.(framework.EnqueueExtensions); ok {
		b |= ifEnqueue
	}
	return b
}

// wrapScorePlugin returns a recording wrapper with the same interface set as p.
func wrapScorePlugin(p framework.ScorePlugin, r *recorder) (framework.Plugin, error) {
	want := interfaceBits(p)
	var w framework.Plugin
	switch want {
	case ifScore:
		w = wS{r}
	case ifScore | ifPreScore:
		w = wPS{r, preScorePart{p.(framework.PreScorePlugin)}}
	case ifScore | ifPreScore | ifFilter | ifEnqueue:
		w = wFPSE{r, filterPart{p.(framework.FilterPlugin)}, preScorePart{p.(framework.PreScorePlugin)}, enqueuePart{p.(framework.EnqueueExtensions)}}
	case ifScore | ifPreFilter | ifFilter | ifEnqueue:
		w = wPFFE{r, preFilterPart{p.(framework.PreFilterPlugin)}, filterPart{p.(framework.FilterPlugin)}, enqueuePart{p.(framework.EnqueueExtensions)}}
	case ifScore | ifPreFilter | ifFilter | ifPreScore | ifEnqueue:
		w = wPFFPSE{r, preFilterPart{p.(framework.PreFilterPlugin)}, filterPart{p.(framework.FilterPlugin)}, preScorePart{p.(framework.PreScorePlugin)}, enqueuePart{p.(framework.EnqueueExtensions)}}
	case ifScore | ifPreFilter | ifFilter | ifReserve | ifPreBind | ifEnqueue:
		w = wPFFRPBE{r, preFilterPart{p.(framework.PreFilterPlugin)}, filterPart{p.(framework.FilterPlugin)}, reservePart{p.(framework.ReservePlugin)}, preBindPart{p.(framework.PreBindPlugin)}, enqueuePart{p.(framework.EnqueueExtensions)}}
	default:
		return nil, fmt.Errorf("goref has no recording wrapper for score plugin %q (interface bits %#x)", p.Name(), want)
	}
	if got := interfaceBits(w); got != want {
		return nil, fmt.Errorf("goref: recording wrapper of %q has interface bits %#x, plugin has %#x", p.Name(), got, want)
	}
	return w, nil
}

// recorders collects one recorder per wrapped score plugin, keyed by Name().
type recorders struct {
	mu sync.Mutex
	m  map[string]*recorder
	// the profile's DefaultPreemption (--preemption, --explain), else nil
	preemption *preemptionPlugin
}

func (rs *recorders) resetAll() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.m {
		r.reset()
	}
}

func (rs *recorders) get(name string) *recorder {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.m[name]
}

// wrapRegistry returns a copy of reg whose factories wrap score plugins.
func wrapRegistry(reg frameworkruntime.Registry, rs *recorders) frameworkruntime.Registry {
	out := make(frameworkruntime.Registry, len(reg))
	for name, factory := range reg {
		factory := factory
		out[name] = func(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
			p, err := factory(args, h)
			if err != nil {
				return nil, err
			}
			sp, ok := p.(framework.ScorePlugin)
			if !ok {
				return p, nil
			}
			r := &recorder{inner: sp}
			r.reset()
			w, err := wrapScorePlugin(sp, r)
			if err != nil {
				return nil, err
			}
			rs.mu.Lock()
			rs.m[sp.Name()] = r
			rs.mu.Unlock()
			return w, nil
		}
	}
	return out
}

// recordingFramework is the real framework with two calls observed.
type recordingFramework struct {
	framework.Framework

	mu sync.Mutex
	// RunScorePlugins of this cycle
	scoreCalled bool
	scoreNodes  []string
	scores      framework.PluginToNodeScores
	// nodes that passed RunFilterPluginsWithNominatedPods, in call order
	passed []string
}

func (f *recordingFramework) resetCycle() {
	f.mu.Lock()
	f.scoreCalled = false
	f.scoreNodes = nil
	f.scores = nil
	f.passed = nil
	f.mu.Unlock()
}

func (f *recordingFramework) RunScorePlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*v1.Node) (framework.PluginToNodeScores, *framework.Status) {
	ps, st := f.Framework.RunScorePlugins(ctx, state, pod, nodes)
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	cp := make(framework.PluginToNodeScores, len(ps))
	for k, l := range ps {
		cp[k] = append(framework.NodeScoreList(nil), l...)
	}
	f.mu.Lock()
	f.scoreCalled = true
	f.scoreNodes = names
	f.scores = cp
	f.mu.Unlock()
	return ps, st
}

func (f *recordingFramework) RunFilterPluginsWithNominatedPods(ctx context.Context, state *framework.CycleState, pod *v1.Pod, info *framework.NodeInfo) *framework.Status {
	st := f.Framework.RunFilterPluginsWithNominatedPods(ctx, state, pod, info)
	if st.IsSuccess() {
		f.mu.Lock()
		f.passed = append(f.passed, info.Node().Name)
		f.mu.Unlock()
	}
	return st
}
