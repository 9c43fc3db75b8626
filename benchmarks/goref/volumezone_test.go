package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// The volume plugins that testdata/filters/volumezone-v1beta3.yaml.cfg disables.
var disabledVolumePlugins = []string{"VolumeBinding", "VolumeRestrictions", "NodeVolumeLimits", "EBSLimits", "GCEPDLimits", "AzureDiskLimits"}

// TestVolumeZone: PersistentVolumeClaims, PersistentVolumes and StorageClasses of the
// input reach the real VolumeZone filter through the informer factory's listers, defaulted
// as the API server stores them, with the volumezone profile (the default profile without
// the other volume plugins).
func TestVolumeZone(t *testing.T) {
	dir := t.TempDir()
	// kubectl get -o json of PVCs and PVs: a v1 List
	volumes := `{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "v1", "kind": "PersistentVolume",
  "metadata": {"name": "pv-a", "labels": {"topology.kubernetes.io/zone": "a"}},
  "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "standard",
           "hostPath": {"path": "/data"}}},
 {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
  "metadata": {"name": "data", "namespace": "default"},
  "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
           "storageClassName": "standard", "volumeName": "pv-a"}},
 {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
  "metadata": {"name": "unbound"},
  "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
           "storageClassName": "standard"}}
]}`
	cluster := `apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: v1
kind: Node
metadata: {name: a, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: standard}
provisioner: kubernetes.io/no-provisioner
---
apiVersion: v1
kind: Pod
metadata: {name: zonal}
spec:
  containers: [{name: c}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]
---
apiVersion: v1
kind: Pod
metadata: {name: noclaim}
spec:
  containers: [{name: c}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: x}}]
---
apiVersion: v1
kind: Pod
metadata: {name: unbound}
spec:
  containers: [{name: c}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: unbound}}]
`
	os.WriteFile(filepath.Join(dir, "1-cluster.yaml"), []byte(cluster), 0o644)
	os.WriteFile(filepath.Join(dir, "2-volumes.json"), []byte(volumes), 0o644)
	in, h := testHarness(t, []string{dir}, scoreOptions{ConfigFile: "testdata/filters/volumezone-v1beta3.yaml.cfg", Seed: 1})

	// Read, not skipped; defaulted as the API server stores them.
	if len(in.SkippedKinds) != 0 || len(in.PVCs) != 2 || len(in.PVs) != 1 || len(in.StorageClasses) != 1 {
		t.Fatalf("skipped %v, PVCs %d, PVs %d, StorageClasses %d", in.SkippedKinds, len(in.PVCs), len(in.PVs), len(in.StorageClasses))
	}
	sc := in.StorageClasses[0]
	if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != storagev1.VolumeBindingImmediate ||
		sc.ReclaimPolicy == nil || *sc.ReclaimPolicy != v1.PersistentVolumeReclaimDelete || sc.Namespace != "" {
		t.Errorf("StorageClass not defaulted: %+v", sc)
	}
	if pv := in.PVs[0]; pv.Spec.PersistentVolumeReclaimPolicy != v1.PersistentVolumeReclaimRetain || pv.Status.Phase != v1.VolumePending || pv.Namespace != "" {
		t.Errorf("PersistentVolume not defaulted: %+v", pv)
	}
	if pvc := in.PVCs[1]; pvc.Namespace != "default" || pvc.Status.Phase != v1.ClaimPending || pvc.Spec.VolumeMode == nil {
		t.Errorf("PersistentVolumeClaim not defaulted: %+v", pvc)
	}

	// The profile: of the volume plugins only VolumeZone, at every extension point.
	l := h.plain.ListPlugins()
	points := map[string][]config.Plugin{
		"preFilter": l.PreFilter.Enabled, "filter": l.Filter.Enabled, "postFilter": l.PostFilter.Enabled,
		"score": l.Score.Enabled, "reserve": l.Reserve.Enabled, "preBind": l.PreBind.Enabled,
	}
	volumeZone := 0
	for point, list := range points {
		for _, p := range list {
			for _, d := range disabledVolumePlugins {
				if p.Name == d {
					t.Errorf("%s: %s is not disabled", point, p.Name)
				}
			}
			if p.Name == "VolumeZone" {
				volumeZone++
			}
		}
	}
	if volumeZone != 1 || len(l.Filter.Enabled) == 0 {
		t.Errorf("VolumeZone at %d extension points (want filter only): %+v", volumeZone, points)
	}

	byPod := map[string]resultJSON{}
	for _, p := range in.PendingPods {
		r, err := h.schedule(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		byPod[p.Name] = r
	}

	// zonal: its PV is in zone a, so only node a fits; node b is rejected by VolumeZone.
	r := byPod["zonal"]
	if r.Host == nil || *r.Host != "a" || r.FeasibleNodes != 1 {
		t.Fatalf("zonal: host %v, %d feasible, error %v", hosts([]resultJSON{r}), r.FeasibleNodes, r.scheduleErr)
	}
	pod := in.PendingPods[0] // zonal (input order)
	ni, err := h.snapshot.NodeInfos().Get("b")
	if err != nil {
		t.Fatal(err)
	}
	state := framework.NewCycleState()
	if s := h.plain.RunPreFilterPlugins(context.Background(), state, pod); !s.IsSuccess() {
		t.Fatal(s)
	}
	statuses := h.plain.RunFilterPlugins(context.Background(), state, pod, ni)
	want := framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had no available volume zone")
	want.SetFailedPlugin("VolumeZone")
	if len(statuses) != 1 || !reflect.DeepEqual(statuses["VolumeZone"], want) {
		t.Errorf("zonal on node b: %v", statuses)
	}

	// noclaim: its PVC does not exist; both nodes have zone labels and reject it.
	checkFit := func(name, reason string) {
		t.Helper()
		r := byPod[name]
		var fe *framework.FitError
		if r.Host != nil || !errors.As(r.scheduleErr, &fe) {
			t.Fatalf("%s: host %v, error %v, want a FitError", name, hosts([]resultJSON{r}), r.scheduleErr)
		}
		if len(fe.Diagnosis.NodeToStatusMap) != 2 {
			t.Errorf("%s: %v", name, fe.Diagnosis.NodeToStatusMap)
		}
		for node, s := range fe.Diagnosis.NodeToStatusMap {
			if s.Code() != framework.UnschedulableAndUnresolvable || s.FailedPlugin() != "VolumeZone" || !reflect.DeepEqual(s.Reasons(), []string{reason}) {
				t.Errorf("%s on node %s: %v %v %v", name, node, s.Code(), s.FailedPlugin(), s.Reasons())
			}
		}
		if !strings.HasPrefix(*r.Error, "0/2 nodes are available: 2 "+reason) {
			t.Errorf("%s: error %q", name, *r.Error)
		}
	}
	checkFit("noclaim", `persistentvolumeclaim "x" not found`)
	// unbound: no volumeName, and its StorageClass's volumeBindingMode defaulted to
	// Immediate (without the default: "VolumeBindingMode not set for StorageClass").
	checkFit("unbound", "PersistentVolume had no name")
}
