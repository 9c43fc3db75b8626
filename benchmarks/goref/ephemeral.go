package main

// goref as the ephemeral volume controller for a pod an event adds (simulate --events,
// replay): pkg/controller/volume/ephemeral's handleVolume for each of the pod's ephemeral
// volumes in order (a claim <pod>-<volume> that exists and is the pod's is left; one that
// is not the pod's stops the controller; otherwise the claim is created with the
// template's labels, annotations and spec and the pod as its controller owner), through
// the DefaultStorageClass admission plugin (a claim of no class gets the one default
// class; two or more default classes refuse it, which stops the controller too). The
// claims are written through the fake clientset after the pod's own event, and goref
// waits until the listers, every VolumeBinding binder's caches and replay's handlers
// (PvcAdd) hold them: the controller keeps up, as kscore models it
// (kscore_fast/io/ephemeral.py).

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// isDefaultClass is storageutil.IsDefaultAnnotation.
func isDefaultClass(c *storagev1.StorageClass) bool {
	return c.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		c.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

// hasClass is PersistentVolumeClaimHasClass.
func hasClass(c *v1.PersistentVolumeClaim) bool {
	_, ok := c.Annotations[v1.BetaStorageClassAnnotation]
	return ok || c.Spec.StorageClassName != nil
}

// createEphemeralClaims runs the controller for pod (nothing for a pod being deleted).
func (h *harness) createEphemeralClaims(ctx context.Context, pod *v1.Pod) error {
	if pod.DeletionTimestamp != nil {
		return nil
	}
	claims := h.client.CoreV1().PersistentVolumeClaims(pod.Namespace)
	var made []*v1.PersistentVolumeClaim
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if vol.Ephemeral == nil {
			continue
		}
		name := ephemeral.VolumeClaimName(pod, vol)
		found, err := claims.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			if ephemeral.VolumeIsForPod(pod, found) != nil {
				break // (handleVolume's error: syncHandler stops)
			}
			continue
		} else if !apierrors.IsNotFound(err) {
			return err
		}
		isTrue := true
		pvc := &v1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pod.Namespace, ResourceVersion: "1",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name,
					UID: pod.UID, Controller: &isTrue, BlockOwnerDeletion: &isTrue}}},
			Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
		}
		if t := vol.Ephemeral.VolumeClaimTemplate; t != nil {
			pvc.Labels, pvc.Annotations = t.Labels, t.Annotations
			pvc.Spec = *t.Spec.DeepCopy()
		}
		if !hasClass(pvc) {
			class, err := h.defaultClass(ctx)
			if err != nil {
				break // (the admission plugin refuses the claim)
			}
			if class != "" {
				pvc.Spec.StorageClassName = &class
			}
		}
		h.volumeEvents.expect("PersistentVolumeClaim", framework.Add, pvc)
		if pvc, err = claims.Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("goref: creating the ephemeral claim %s/%s: %v", pod.Namespace, name, err)
		}
		made = append(made, pvc)
	}
	if len(made) == 0 {
		return nil
	}
	deadline := time.Now().Add(30 * time.Second)
	for !h.listersHold(made) || h.volumeEvents.pending() > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("goref: the informers did not see the ephemeral claims of %s", podKey(pod))
		}
		time.Sleep(100 * time.Microsecond)
	}
	return h.binders.wait(made, nil)
}

// defaultClass is the DefaultStorageClass admission plugin's getDefaultClass: the one
// default class ("" none); an error with two or more.
func (h *harness) defaultClass(ctx context.Context) (string, error) {
	list, err := h.client.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	var defaults []string
	for i := range list.Items {
		if isDefaultClass(&list.Items[i]) {
			defaults = append(defaults, list.Items[i].Name)
		}
	}
	if len(defaults) > 1 {
		return "", fmt.Errorf("%d default StorageClasses were found", len(defaults))
	}
	if len(defaults) == 1 {
		return defaults[0], nil
	}
	return "", nil
}

// listersHold: the claims informer's lister holds each claim.
func (h *harness) listersHold(pvcs []*v1.PersistentVolumeClaim) bool {
	lister := h.informers.Core().V1().PersistentVolumeClaims().Lister()
	for _, c := range pvcs {
		got, err := lister.PersistentVolumeClaims(c.Namespace).Get(c.Name)
		if err != nil || got.ResourceVersion != c.ResourceVersion {
			return false
		}
	}
	return true
}
