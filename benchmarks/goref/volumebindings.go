package main

// What VolumeBinding's Reserve decided for a pod (simulate, replay): the real binder's
// AssumePodVolumes runs unchanged; a recorder around it keeps, for each pod whose call
// succeeded, the PodVolumes it left: the static bindings (claim -> PersistentVolume, put
// in the binder's PV assume cache with the claim as claimRef) and the claims to
// provision (put in its PVC assume cache with the selected-node annotation), in the
// binder's order.

import (
	"reflect"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/volumebinding"
)

// volumeBindingJSON is one claim of a pod's Reserve (docs/contract.md).
type volumeBindingJSON struct {
	Claim        string  `json:"claim"`
	Volume       *string `json:"volume"`
	Provisioned  bool    `json:"provisioned"`
	SelectedNode *string `json:"selectedNode"`
}

// reserveRecorder is a SchedulerVolumeBinder that records AssumePodVolumes' outcome.
type reserveRecorder struct {
	volumebinding.SchedulerVolumeBinder
	into *volumeBinders
}

func (r *reserveRecorder) AssumePodVolumes(pod *v1.Pod, node string, pv *volumebinding.PodVolumes) (bool, error) {
	allBound, err := r.SchedulerVolumeBinder.AssumePodVolumes(pod, node, pv)
	if err != nil || allBound {
		return allBound, err
	}
	out := []volumeBindingJSON{}
	for _, b := range pv.StaticBindings {
		claim, volume := bindingNames(b)
		out = append(out, volumeBindingJSON{Claim: claim, Volume: &volume})
	}
	for _, c := range pv.DynamicProvisions {
		selected := node
		out = append(out, volumeBindingJSON{Claim: c.Name, Provisioned: true, SelectedNode: &selected})
	}
	r.into.mu.Lock()
	defer r.into.mu.Unlock()
	if r.into.reserved == nil {
		r.into.reserved = map[string][]volumeBindingJSON{}
	}
	r.into.reserved[podKey(pod)] = out
	return allBound, nil
}

// bindingNames reads a BindingInfo's claim and volume names (its fields are unexported;
// reflection reads them without changing anything).
func bindingNames(b *volumebinding.BindingInfo) (claim, volume string) {
	v := reflect.ValueOf(b).Elem()
	name := func(field string) string {
		return v.FieldByName(field).Elem().FieldByName("ObjectMeta").FieldByName("Name").String()
	}
	return name("pvc"), name("pv")
}

// take returns and forgets what Reserve decided for the pod key (nil: nothing).
func (b *volumeBinders) take(key string) []volumeBindingJSON {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.reserved[key]
	delete(b.reserved, key)
	return out
}
