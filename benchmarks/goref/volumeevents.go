package main

// The cluster events of the completed volume bindings, the ephemeral volume controller's
// claims and the CSIStorageCapacity events' writes in goref replay. pkg/scheduler's
// addAllEventHandlers (eventhandlers.go) registers on the PersistentVolume and
// PersistentVolumeClaim informers, for the action types some plugin registered for on
// that resource (the frameworks' cluster event map folded per resource: gvkMap), a
// handler that calls the queue's MoveAllToActiveOrBackoffQueue with PvAdd, PvUpdate,
// PvcAdd or PvcUpdate (buildEvtResHandler). goref registers the same handlers on its
// informers before they start. They act on the writes completeBindings makes (the
// initial lists' adds, which reach the real scheduler's handlers before any pod is
// queued and move nothing, are let pass), and completeBindings waits until each of its
// writes has been handled: the moves happen before the next scheduling cycle.

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// volumeEvents is the handlers' side of completeBindings' writes.
type volumeEvents struct {
	mu sync.Mutex
	// expected counts the writes not handled yet, by eventKey
	expected map[string]int
	move     func(framework.ClusterEvent)
	// handles: the action types handled, by kind
	handles map[string]framework.ActionType
}

func eventKey(kind string, obj metav1.Object) string {
	return kind + "/" + obj.GetNamespace() + "/" + obj.GetName() + "@" + obj.GetResourceVersion()
}

// expect records a write (an add or an update) about to be made, when a handler takes
// it (nil e: no handlers, nothing to wait for).
func (e *volumeEvents) expect(kind string, at framework.ActionType, obj metav1.Object) {
	if e == nil || e.handles[kind]&at == 0 {
		return
	}
	e.mu.Lock()
	e.expected[eventKey(kind, obj)]++
	e.mu.Unlock()
}

// pending is how many expected writes the handlers have not handled yet.
func (e *volumeEvents) pending() int {
	if e == nil {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, k := range e.expected {
		n += k
	}
	return n
}

// handle is buildEvtResHandler's handler for an object completeBindings wrote.
func (e *volumeEvents) handle(kind string, obj interface{}, evt framework.ClusterEvent) {
	o, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	key := eventKey(kind, o)
	e.mu.Lock()
	n := e.expected[key]
	e.mu.Unlock()
	if n == 0 {
		return
	}
	e.move(evt)
	e.mu.Lock()
	if e.expected[key]--; e.expected[key] == 0 {
		delete(e.expected, key)
	}
	e.mu.Unlock()
}

// registerVolumeEvents adds the handlers addAllEventHandlers adds for the PV and PVC
// events of h's cluster event map, moving with move.
func registerVolumeEvents(h *harness, f informers.SharedInformerFactory, move func(framework.ClusterEvent)) *volumeEvents {
	gvkMap := map[framework.GVK]framework.ActionType{}
	for evt := range h.eventMap {
		gvkMap[evt.Resource] |= evt.ActionType
	}
	e := &volumeEvents{expected: map[string]int{}, move: move, handles: map[string]framework.ActionType{}}
	for _, r := range []struct {
		gvk         framework.GVK
		kind, short string
		informer    cache.SharedIndexInformer
	}{
		{framework.PersistentVolume, "PersistentVolume", "Pv", f.Core().V1().PersistentVolumes().Informer()},
		{framework.PersistentVolumeClaim, "PersistentVolumeClaim", "Pvc", f.Core().V1().PersistentVolumeClaims().Informer()},
		{framework.CSIStorageCapacity, "CSIStorageCapacity", "CSIStorageCapacity", f.Storage().V1beta1().CSIStorageCapacities().Informer()},
	} {
		at, kind := gvkMap[r.gvk], r.kind
		e.handles[kind] = at & (framework.Add | framework.Update | framework.Delete)
		funcs := cache.ResourceEventHandlerFuncs{}
		if at&framework.Add != 0 {
			evt := framework.ClusterEvent{Resource: r.gvk, ActionType: framework.Add, Label: r.short + "Add"}
			funcs.AddFunc = func(obj interface{}) { e.handle(kind, obj, evt) }
		}
		if at&framework.Update != 0 {
			evt := framework.ClusterEvent{Resource: r.gvk, ActionType: framework.Update, Label: r.short + "Update"}
			funcs.UpdateFunc = func(_, obj interface{}) { e.handle(kind, obj, evt) }
		}
		if at&framework.Delete != 0 { // (goref deletes no volume or claim: capacities only)
			evt := framework.ClusterEvent{Resource: r.gvk, ActionType: framework.Delete, Label: r.short + "Delete"}
			funcs.DeleteFunc = func(obj interface{}) {
				if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = d.Obj
				}
				e.handle(kind, obj, evt)
			}
		}
		if funcs.AddFunc != nil || funcs.UpdateFunc != nil || funcs.DeleteFunc != nil {
			r.informer.AddEventHandler(funcs)
		}
	}
	return e
}
