package main

// VolumeBinding's binder keeps PersistentVolumes and PersistentVolumeClaims in assume
// caches that the informers' event handlers fill; those run after WaitForCacheSync
// returns, so a cycle right after it could see a volume or claim as absent (in a cluster
// the scheduler starts long before it sees pods). goref waits until every binder finds
// every input claim and volume.

import (
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumebinding"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// volumeBinders collects the VolumeBinding plugins the frameworks build, and what their
// Reserve assumed per pod (reserved).
type volumeBinders struct {
	mu       sync.Mutex
	list     []*volumebinding.VolumeBinding
	reserved map[string][]volumeBindingJSON
}

// wrap makes reg's VolumeBinding factory record the plugins it builds.
func (b *volumeBinders) wrap(reg frameworkruntime.Registry) frameworkruntime.Registry {
	orig, ok := reg[volumebinding.Name]
	if !ok {
		return reg
	}
	reg[volumebinding.Name] = func(args runtime.Object, h framework.Handle) (framework.Plugin, error) {
		p, err := orig(args, h)
		if vb, ok := p.(*volumebinding.VolumeBinding); ok {
			b.mu.Lock()
			b.list = append(b.list, vb)
			b.mu.Unlock()
			vb.Binder = &reserveRecorder{SchedulerVolumeBinder: vb.Binder, into: b}
		}
		return p, err
	}
	return reg
}

// wait returns once every binder holds the claims and volumes, or after 30 s.
func (b *volumeBinders) wait(pvcs []*v1.PersistentVolumeClaim, pvs []*v1.PersistentVolume) error {
	deadline := time.Now().Add(30 * time.Second)
	for _, vb := range b.list {
		for !binderHolds(vb.Binder, pvcs, pvs) {
			if time.Now().After(deadline) {
				return fmt.Errorf("VolumeBinding's volume and claim caches did not fill")
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

// binderHolds: GetPodVolumes finds each claim, and FindPodVolumes finds each volume as
// the volume of a bound claim.
func binderHolds(b volumebinding.SchedulerVolumeBinder, pvcs []*v1.PersistentVolumeClaim, pvs []*v1.PersistentVolume) bool {
	for _, c := range pvcs {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: "goref-probe"},
			Spec: v1.PodSpec{Volumes: []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{
				PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}}}}}
		if _, _, _, err := b.GetPodVolumes(pod); err != nil {
			return false
		}
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "goref-probe"}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "goref-probe"}}
	for _, v := range pvs {
		claim := &v1.PersistentVolumeClaim{Spec: v1.PersistentVolumeClaimSpec{VolumeName: v.Name}}
		_, reasons, err := b.FindPodVolumes(pod, []*v1.PersistentVolumeClaim{claim}, nil, node)
		if err != nil {
			return false
		}
		for _, r := range reasons {
			if string(r) == volumebinding.ErrReasonPVNotExist {
				return false
			}
		}
	}
	return true
}
