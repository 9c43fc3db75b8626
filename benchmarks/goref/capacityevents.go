package main

// CSIStorageCapacity objects written by an event (addCapacity, updateCapacity,
// deleteCapacity): through the fake clientset (storage.k8s.io/v1beta1, the version the
// v1.23 scheduler's informer lists), then goref waits until the informer's lister holds
// the change and replay's handlers (volumeevents.go: addAllEventHandlers'
// buildEvtResHandler for the action types the plugins registered on CSIStorageCapacity:
// VolumeBinding's Add and Update; no handler for a delete) handled it.

import (
	"context"
	"fmt"
	"strings"
	"time"

	storagev1beta1 "k8s.io/api/storage/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

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
		old, gerr := client(namespace).Get(ctx, name, metav1.GetOptions{})
		if gerr != nil {
			return fmt.Errorf("no CSIStorageCapacity %s/%s", namespace, name)
		}
		h.volumeEvents.expect("CSIStorageCapacity", framework.Delete, old)
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
			h.volumeEvents.expect("CSIStorageCapacity", framework.Add, want)
			want, err = client(namespace).Create(ctx, want, metav1.CreateOptions{})
		default:
			want.ResourceVersion = nextVersion(old.ResourceVersion)
			h.volumeEvents.expect("CSIStorageCapacity", framework.Update, want)
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
		if held && h.volumeEvents.pending() == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("goref: the informers did not see the CSIStorageCapacity %s/%s", namespace, name)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
