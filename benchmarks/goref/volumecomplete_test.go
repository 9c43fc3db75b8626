package main

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// completionCluster: nodes a (zone z1) and b (z2) with CSINodes whose example.com/disk
// entry has the zone as topology key; a claim to provision (class fast, that driver) and
// a claim matched to the local volume pv-b (on b), each used by two pods; p1 and p2 take
// the fast claim, p3 and p4 the local one.
const completionCluster = `
kind: Node
metadata: {name: a, labels: {topology.kubernetes.io/zone: z1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
kind: Node
metadata: {name: b, labels: {topology.kubernetes.io/zone: z2}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: a}
spec: {drivers: [{name: example.com/disk, nodeID: a, topologyKeys: [topology.kubernetes.io/zone]}]}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: b}
spec: {drivers: [{name: example.com/disk, nodeID: b, topologyKeys: [topology.kubernetes.io/zone]}]}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: example.com/disk
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
kind: PersistentVolume
metadata: {name: pv-b}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  hostPath: {path: /data}
  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z2]}]}]}}
status: {phase: Available}
---
kind: PersistentVolumeClaim
metadata: {name: made, namespace: default}
spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 2Gi}}}
---
kind: PersistentVolumeClaim
metadata: {name: static, namespace: default, uid: u-static}
spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 1Gi}}}
---
kind: Pod
metadata: {name: p1}
spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: made}}]}
---
kind: Pod
metadata: {name: p2}
spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: made}}]}
---
kind: Pod
metadata: {name: p3}
spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: static}}]}
---
kind: Pod
metadata: {name: p4}
spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: static}}]}
`

// TestBindingsComplete: Reserve's bindings complete before the next cycle: the
// provisioned claim is bound to pvc-<derived uid>, a CSI volume with the zone of its
// node as node affinity; the matched claim to pv-b; the pods sharing them land in that
// zone, as pods of bound claims (no more volumeBindings); the objects are as the PV
// controller leaves them.
func TestBindingsComplete(t *testing.T) {
	for seed := int64(0); seed < 4; seed++ {
		out := runEvents(t, completionCluster, strings.Join([]string{
			`{"op": "schedule", "pod": "default/p1"}`, `{"op": "schedule", "pod": "default/p2"}`,
			`{"op": "schedule", "pod": "default/p3"}`, `{"op": "schedule", "pod": "default/p4"}`,
		}, "\n")+"\n", seed)
		h := hosts(out)
		uid := string(claimUID(&v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "made"}}))
		if len(out[0].VolumeBindings) != 1 || !out[0].VolumeBindings[0].Provisioned ||
			out[0].VolumeBindings[0].Volume == nil || *out[0].VolumeBindings[0].Volume != "pvc-"+uid {
			t.Fatalf("seed %d: p1's bindings %+v, want the claim made provisioned as pvc-%s", seed, out[0].VolumeBindings, uid)
		}
		if h[1] != h[0] && out[1].FeasibleNodes != 1 || out[1].VolumeBindings != nil {
			t.Errorf("seed %d: p2 on %s (feasible %d, bindings %+v), want p1's zone only, its claim bound", seed, h[1], out[1].FeasibleNodes, out[1].VolumeBindings)
		}
		if h[2] != "b" || h[3] != "b" || out[3].VolumeBindings != nil {
			t.Errorf("seed %d: p3, p4 on %s, %s (p4's bindings %+v), want b and pv-b bound", seed, h[2], h[3], out[3].VolumeBindings)
		}
	}
	in, h := testHarness(t, []string{writeCluster(t, completionCluster)}, scoreOptions{ConfigFile: "testdata/filters/default-v1beta3.yaml.cfg"})
	sim := newSimulator(h, false)
	ctx := context.Background()
	for _, p := range in.PendingPods {
		if p.Name == "p3" {
			if r, err := sim.step(ctx, p); err != nil || r.Host == nil || *r.Host != "b" {
				t.Fatalf("p3: %+v, %v", r, err)
			}
		}
	}
	pv, err := h.client.CoreV1().PersistentVolumes().Get(ctx, "pv-b", metav1.GetOptions{})
	if err != nil || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != "u-static" || pv.Status.Phase != v1.VolumeBound {
		t.Errorf("pv-b %+v %v: want bound to the claim static (uid u-static)", pv, err)
	}
	pvc, err := h.client.CoreV1().PersistentVolumeClaims("default").Get(ctx, "static", metav1.GetOptions{})
	if err != nil || pvc.Spec.VolumeName != "pv-b" || pvc.Annotations[annBindCompleted] != "yes" || pvc.Status.Phase != v1.ClaimBound {
		t.Errorf("claim static %+v %v: want bound to pv-b", pvc, err)
	}
}

// TestClaimUID: a claim's own uid, else a UUID-shaped digest of its namespace and name.
func TestClaimUID(t *testing.T) {
	own := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "c", UID: "u"}}
	none := &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "c"}}
	// (kscore's claim_uid gives the same: tests/plugins/volumebinding/test_complete.py)
	if claimUID(own) != "u" || claimUID(none) != "8c253c7d-08ee-b54f-72b8-592e4ac69c63" {
		t.Errorf("claimUID: %q, %q", claimUID(own), claimUID(none))
	}
}

const inTreeCluster = `
kind: Node
metadata: {name: a, labels: {topology.gke.io/zone: us-central1-a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
kind: Node
metadata: {name: b, labels: {topology.gke.io/zone: us-central1-b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
kind: CSINode
apiVersion: storage.k8s.io/v1
metadata: {name: a}
spec: {drivers: [{name: pd.csi.storage.gke.io, nodeID: a, topologyKeys: [topology.gke.io/zone]}]}
---
kind: StorageClass
apiVersion: storage.k8s.io/v1
metadata: {name: gce}
provisioner: kubernetes.io/gce-pd
volumeBindingMode: WaitForFirstConsumer
---
kind: PersistentVolumeClaim
metadata: {name: disk, namespace: default, uid: u-disk}
spec: {accessModes: [ReadWriteOnce], storageClassName: gce, resources: {requests: {storage: 1Gi}}}
---
kind: Pod
metadata: {name: p1}
spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: disk}}]}
`

// TestMigratedInTreeProvisioning: a claim of kubernetes.io/gce-pd (CSIMigrationGCE on)
// is provisioned through pd.csi.storage.gke.io and translated back: a gcePersistentDisk
// pvc-<uid> with the GA zone label and the zone and region as node affinity.
func TestMigratedInTreeProvisioning(t *testing.T) {
	in, h := testHarness(t, []string{writeCluster(t, inTreeCluster)}, scoreOptions{ConfigFile: "testdata/filters/default-v1beta3.yaml.cfg"})
	sim := newSimulator(h, false)
	ctx := context.Background()
	r, err := sim.step(ctx, in.PendingPods[0])
	if err != nil || r.Host == nil || len(r.VolumeBindings) != 1 || r.VolumeBindings[0].Volume == nil {
		t.Fatalf("p1: %+v, %v", r, err)
	}
	pv, err := h.client.CoreV1().PersistentVolumes().Get(ctx, "pvc-u-disk", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("pvc-u-disk: %v", err)
	}
	if pv.Spec.GCEPersistentDisk == nil || pv.Spec.GCEPersistentDisk.PDName != "pvc-u-disk" || pv.Spec.CSI != nil {
		t.Errorf("source %+v: want gcePersistentDisk pvc-u-disk", pv.Spec.PersistentVolumeSource)
	}
	if *r.Host == "a" {
		zone := pv.Labels["topology.kubernetes.io/zone"]
		terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
		if zone != "us-central1-a" || len(terms) != 1 || len(terms[0].MatchExpressions) != 2 ||
			terms[0].MatchExpressions[0].Key != "topology.kubernetes.io/zone" ||
			terms[0].MatchExpressions[1].Key != "topology.kubernetes.io/region" ||
			terms[0].MatchExpressions[1].Values[0] != "us-central1" {
			t.Errorf("on a: labels %v, affinity %+v: want the zone label, zone and region terms", pv.Labels, terms)
		}
	} else if pv.Spec.NodeAffinity != nil || len(pv.Labels) != 0 {
		t.Errorf("on b (no CSINode): labels %v, affinity %+v: want none", pv.Labels, pv.Spec.NodeAffinity)
	}
}

// TestMigratedHandle: the volume ids goref gives a migrated driver's disks (kscore's
// intree.csi_handle gives the same: tests/plugins/volumebinding/test_intree.py).
func TestMigratedHandle(t *testing.T) {
	if got := migratedHandle("kubernetes.io/aws-ebs", "pvc-u"); got != "vol-34b566796bc31fda0" {
		t.Errorf("EBS: %q", got)
	}
	if got := migratedHandle("kubernetes.io/cinder", "pvc-u"); got != "34b56679-6bc3-1fda-060c-bdcf78943d1b" {
		t.Errorf("Cinder: %q", got)
	}
}
