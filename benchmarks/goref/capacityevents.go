package main

// CSIStorageCapacity objects written by an event (addCapacity, updateCapacity,
// deleteCapacity): through the fake clientset (storage.k8s.io/v1beta1, the version the
// v1.23 scheduler's informer lists), then goref waits until the informer's lister holds
// the change and replay's handlers (addAllEventHandlers' buildEvtResHandler for the
// action types the plugins registered on CSIStorageCapacity: VolumeBinding's Add and
// Update; no handler for a delete) handled it.

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	storagev1beta1 "k8s.io/api/storage/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// capacityEvents counts the writes whose handler has not run yet.
type capacityEvents struct {
	waiting int64
	handles framework.ActionType
}

// registerCapacityEvents adds buildEvtResHandler's handlers for CSIStorageCapacity, for
// the action types h's cluster event map holds, moving with move.
func registerCapacityEvents(h *harness, f informers.SharedInformerFactory, move func(framework.ClusterEvent)) *capacityEvents {
	var at framework.ActionType
	for evt := range h.eventMap {
		if evt.Resource == framework.CSIStorageCapacity {
			at |= evt.ActionType
		}
	}
	e := &capacityEvents{handles: at}
	funcs := cache.ResourceEventHandlerFuncs{}
	done := func(evt framework.ClusterEvent) {
		move(evt)
		atomic.AddInt64(&e.waiting, -1)
	}
	if at&framework.Add != 0 {
		evt := framework.ClusterEvent{Resource: framework.CSIStorageCapacity, ActionType: framework.Add, Label: "CSIStorageCapacityAdd"}
		funcs.AddFunc = func(interface{}) { done(evt) }
	}
	if at&framework.Update != 0 {
		evt := framework.ClusterEvent{Resource: framework.CSIStorageCapacity, ActionType: framework.Update, Label: "CSIStorageCapacityUpdate"}
		funcs.UpdateFunc = func(_, _ interface{}) { done(evt) }
	}
	if at&framework.Delete != 0 {
		evt := framework.ClusterEvent{Resource: framework.CSIStorageCapacity, ActionType: framework.Delete, Label: "CSIStorageCapacityDelete"}
		funcs.DeleteFunc = func(interface{}) { done(evt) }
	}
	f.Storage().V1beta1().CSIStorageCapacities().Informer().AddEventHandler(funcs)
	return e
}

// expect: a write of action type at is about to be made.
func (e *capacityEvents) expect(at framework.ActionType) {
	if e != nil && e.handles&at != 0 {
		atomic.AddInt64(&e.waiting, 1)
	}
}

func (e *capacityEvents) pending() bool {
	return e != nil && atomic.LoadInt64(&e.waiting) > 0
}

// writeCapacity performs a capacity operation of an events file.
func (h *harness) writeCapacity(ctx context.Context, op eventOp) error {
	client := h.client.StorageV1beta1().CSIStorageCapacities
	var want *storagev1beta1.CSIStorageCapacity // (nil: deleted)
	var namespace, name string
	var err error
	switch op.Op {
	case "deleteCapacity":
		key := op.name()
		if i := strings.LastIndex(key, "/"); i >= 0 {
			namespace, name = key[:i], key[i+1:]
		} else {
			namespace, name = "default", key
		}
		if _, err := client(namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("no CSIStorageCapacity %s/%s", namespace, name)
		}
		h.capacityEvents.expect(framework.Delete)
		err = client(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	default:
		in, _, derr := decodeObject(op.Capacity, "CSIStorageCapacity", op.line)
		if derr != nil {
			return derr
		}
		if len(in.CSIStorageCapacities) != 1 {
			return fmt.Errorf("expected one CSIStorageCapacity")
		}
		want = in.CSIStorageCapacities[0]
		namespace, name = want.Namespace, want.Name
		old, gerr := client(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case op.Op == "addCapacity" && gerr == nil:
			return fmt.Errorf("CSIStorageCapacity %s/%s exists", namespace, name)
		case op.Op == "updateCapacity" && gerr != nil:
			return fmt.Errorf("no CSIStorageCapacity %s/%s", namespace, name)
		case op.Op == "addCapacity":
			want.ResourceVersion = "1"
			h.capacityEvents.expect(framework.Add)
			want, err = client(namespace).Create(ctx, want, metav1.CreateOptions{})
		default:
			want.ResourceVersion = nextVersion(old.ResourceVersion)
			h.capacityEvents.expect(framework.Update)
			want, err = client(namespace).Update(ctx, want, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return err
	}
	lister := h.informers.Storage().V1beta1().CSIStorageCapacities().Lister()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, gerr := lister.CSIStorageCapacities(namespace).Get(name)
		held := want == nil && apierrors.IsNotFound(gerr) ||
			want != nil && gerr == nil && got.ResourceVersion == want.ResourceVersion
		if held && !h.capacityEvents.pending() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("goref: the informers did not see the CSIStorageCapacity %s/%s", namespace, name)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
