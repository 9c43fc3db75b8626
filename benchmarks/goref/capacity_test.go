package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCSIStorageCapacity: CSIStorageCapacity objects (storage.k8s.io/v1beta1, the version
// v1.23's scheduler lists, and v1, read alike) reach the real VolumeBinding plugin's
// capacity check through the informer factory, namespaced (defaulted to "default"), for a
// class provisioned by a CSIDriver with storageCapacity: true.
func TestCSIStorageCapacity(t *testing.T) {
	dir := t.TempDir()
	cluster := `apiVersion: v1
kind: Node
metadata: {name: a, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {zone: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1beta1
kind: CSIStorageCapacity
metadata: {name: in-a, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {zone: a}}
capacity: 2Gi
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: in-b}
storageClassName: fast
nodeTopology: {matchLabels: {zone: b}}
capacity: 10Gi
maximumVolumeSize: 1Gi
`
	for _, c := range []struct{ name, size string }{{"small", "1Gi"}, {"big", "2Gi"}} {
		cluster += fmt.Sprintf(`---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: %[1]s}
spec: {storageClassName: fast, accessModes: [ReadWriteOnce], resources: {requests: {storage: %[2]s}}}
---
apiVersion: v1
kind: Pod
metadata: {name: %[1]s}
spec:
  containers: [{name: c}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: %[1]s}}]
`, c.name, c.size)
	}
	os.WriteFile(filepath.Join(dir, "cluster.yaml"), []byte(cluster), 0o644)
	in, h := testHarness(t, []string{dir}, scoreOptions{ConfigFile: "testdata/filters/default-v1beta3.yaml.cfg", Seed: 1})
	if len(in.SkippedKinds) != 0 || len(in.CSIStorageCapacities) != 2 {
		t.Fatalf("skipped %v, CSIStorageCapacities %d", in.SkippedKinds, len(in.CSIStorageCapacities))
	}
	if c := in.CSIStorageCapacities[1]; c.Namespace != "default" || c.MaximumVolumeSize == nil {
		t.Errorf("CSIStorageCapacity not read as given: %+v", c)
	}
	byPod := map[string]resultJSON{}
	for _, p := range in.PendingPods {
		r, err := h.schedule(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		byPod[p.Name] = r
	}
	// small fits both nodes (2Gi in a; b's maximumVolumeSize 1Gi); big only a.
	if r := byPod["small"]; r.FeasibleNodes != 2 {
		t.Errorf("small: %d feasible, error %v", r.FeasibleNodes, r.scheduleErr)
	}
	if r := byPod["big"]; r.FeasibleNodes != 1 || r.Host == nil || *r.Host != "a" {
		t.Errorf("big: host %v, %d feasible, error %v", hosts([]resultJSON{r}), r.FeasibleNodes, r.scheduleErr)
	}
}
