package main

// goref as the PersistentVolume controller and the external provisioners: once a pod's
// Reserve succeeded, the bindings it assumed complete through the fake clientset before
// the next cycle, as PreBind's BindPodVolumes waits for them in a cluster (binder.go:
// bindAPIUpdate, then checkBindings until every claim is fully bound), and goref waits
// until the informers and every VolumeBinding binder's caches hold them:
//   - a static binding: the volume's claimRef names the claim (with its uid), phase
//     Bound; the claim's spec.volumeName is the volume, pv.kubernetes.io/bind-completed
//     set, phase Bound (the PV controller's bind);
//   - a claim to provision through a CSI provisioner (outside kubernetes.io/): a new
//     volume pvc-<claim uid> (request, class, access and volume modes, claimRef, csi
//     {driver: the provisioner, volumeHandle: its name}, node affinity: the node's values
//     of the driver's topologyKeys in the node's CSINode), then bound as above;
//   - a claim of an in-tree provisioner whose CSI migration is on (GCE PD, EBS, Azure
//     Disk, Cinder): the PV controller hands it to the migrated CSI driver's external
//     provisioner, which makes the CSI volume as above (the driver's topologyKeys, a
//     volume id of migratedHandle's) and, the class being the in-tree plugin's,
//     translates it back with csi-translation-lib's TranslateCSIPVToInTree before it
//     creates it; a translation that fails is goref's error (the provisioner fails);
//   - a claim of kubernetes.io/azure-file (migration off): the PV controller's own
//     plugin's volume (azurefile.go);
//   - another in-tree provisioner's claim: nothing (it stays pending with its selected
//     node).
// A claim without metadata.uid gets claimUID's (docs/volume-bindings.md).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	csitrans "k8s.io/csi-translation-lib"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

const (
	annBindCompleted = "pv.kubernetes.io/bind-completed"
	annBoundByCtrl   = "pv.kubernetes.io/bound-by-controller"
	annProvisionedBy = "pv.kubernetes.io/provisioned-by"
)

// claimUID is the claim's uid, or for one without: objectUID's.
func claimUID(c *v1.PersistentVolumeClaim) types.UID {
	if c.UID != "" {
		return c.UID
	}
	return objectUID(c.Namespace, c.Name)
}

// objectUID is the uid given to an object the input gives none (as the API server gives
// every object one): the SHA-256 of "namespace/name" as a UUID (8-4-4-4-12 hexadecimal
// digits of its first 16 bytes), as kscore does.
func objectUID(namespace, name string) types.UID {
	sum := sha256.Sum256([]byte(namespace + "/" + name))
	d := hex.EncodeToString(sum[:])
	return types.UID(d[:8] + "-" + d[8:12] + "-" + d[12:16] + "-" + d[16:20] + "-" + d[20:32])
}

// nextVersion is the resourceVersion after v (the assume caches take an update only
// with a newer one).
func nextVersion(v string) string {
	n, _ := strconv.ParseInt(v, 10, 64)
	return strconv.FormatInt(n+1, 10)
}

// completion is what completeBindings wrote, for waitCompleted.
type completion struct {
	claims  []*v1.PersistentVolumeClaim
	volumes []*v1.PersistentVolume
	// selected: in-tree provisioners' claims, given their selected node only
	selected []*v1.PersistentVolumeClaim
}

// completeBindings completes the bindings Reserve assumed for pod on host (bindings, in
// the binder's order) and fills in the provisioned volumes' names.
func (h *harness) completeBindings(ctx context.Context, pod *v1.Pod, host string, bindings []volumeBindingJSON) error {
	done := completion{}
	made := map[string]*v1.PersistentVolume{}
	for i := range bindings {
		b := &bindings[i]
		claims := h.client.CoreV1().PersistentVolumeClaims(pod.Namespace)
		pvc, err := claims.Get(ctx, b.Claim, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("goref: completing %s/%s: %v", pod.Namespace, b.Claim, err)
		}
		pvc = pvc.DeepCopy()
		pvc.UID = claimUID(pvc)
		var pv *v1.PersistentVolume
		if !b.Provisioned {
			if pv, err = h.bindVolume(ctx, pvc, *b.Volume); err != nil {
				return err
			}
		} else {
			// (a claim the pod lists twice is provisioned once: its volume again)
			if pv = made[b.Claim]; pv == nil {
				if pv, err = h.provision(ctx, pvc, host); err != nil {
					return err
				}
				made[b.Claim] = pv
			}
			if pv == nil {
				// an in-tree provisioner's claim: PreBind's write of the selected node
				// (bindAPIUpdate), and no provisioning
				metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, "volume.kubernetes.io/selected-node", host)
				pvc.ResourceVersion = nextVersion(pvc.ResourceVersion)
				h.volumeEvents.expect("PersistentVolumeClaim", framework.Update, pvc)
				if pvc, err = claims.Update(ctx, pvc, metav1.UpdateOptions{}); err != nil {
					return fmt.Errorf("goref: selecting a node for claim %s/%s: %v", pod.Namespace, b.Claim, err)
				}
				done.selected = append(done.selected, pvc)
				continue
			}
			name := pv.Name
			b.Volume = &name
		}
		pvc.Spec.VolumeName = pv.Name
		metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, annBindCompleted, "yes")
		if b.Provisioned {
			metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, "volume.kubernetes.io/selected-node", host)
		} else {
			metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, annBoundByCtrl, "yes")
		}
		pvc.Status.Phase = v1.ClaimBound
		pvc.Status.AccessModes = pv.Spec.AccessModes
		pvc.Status.Capacity = pv.Spec.Capacity
		pvc.ResourceVersion = nextVersion(pvc.ResourceVersion)
		h.volumeEvents.expect("PersistentVolumeClaim", framework.Update, pvc)
		if pvc, err = claims.Update(ctx, pvc, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("goref: binding claim %s/%s: %v", pod.Namespace, b.Claim, err)
		}
		done.claims = append(done.claims, pvc)
		done.volumes = append(done.volumes, pv)
	}
	return h.waitCompleted(done)
}

// claimRef is the PV controller's reference to claim.
func claimRef(c *v1.PersistentVolumeClaim) *v1.ObjectReference {
	return &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
		Namespace: c.Namespace, Name: c.Name, UID: c.UID}
}

// bindVolume writes the static binding's volume: claimRef, phase Bound.
func (h *harness) bindVolume(ctx context.Context, pvc *v1.PersistentVolumeClaim, name string) (*v1.PersistentVolume, error) {
	volumes := h.client.CoreV1().PersistentVolumes()
	pv, err := volumes.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("goref: binding volume %s: %v", name, err)
	}
	pv = pv.DeepCopy()
	pv.Spec.ClaimRef = claimRef(pvc)
	metav1.SetMetaDataAnnotation(&pv.ObjectMeta, annBoundByCtrl, "yes")
	pv.Status.Phase = v1.VolumeBound
	pv.ResourceVersion = nextVersion(pv.ResourceVersion)
	h.volumeEvents.expect("PersistentVolume", framework.Update, pv)
	if pv, err = volumes.Update(ctx, pv, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("goref: binding volume %s: %v", name, err)
	}
	return pv, nil
}

// provision creates the volume an external CSI provisioner creates for pvc selected for
// host (nil: an in-tree provisioner's claim, not provisioned).
func (h *harness) provision(ctx context.Context, pvc *v1.PersistentVolumeClaim, host string) (*v1.PersistentVolume, error) {
	className := ""
	if pvc.Spec.StorageClassName != nil {
		className = *pvc.Spec.StorageClassName
	}
	if c, ok := pvc.Annotations[v1.BetaStorageClassAnnotation]; ok {
		className = c
	}
	class, err := h.client.StorageV1().StorageClasses().Get(ctx, className, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("goref: provisioning %s/%s: %v", pvc.Namespace, pvc.Name, err)
	}
	driver, migrated := class.Provisioner, false
	if class.Provisioner == azureFilePlugin {
		pv, err := azureFileVolume(pvc, class)
		if err != nil {
			return nil, fmt.Errorf("goref: provisioning %s/%s for %s on node %s: %v", pvc.Namespace, pvc.Name, class.Provisioner, host, err)
		}
		h.volumeEvents.expect("PersistentVolume", framework.Add, pv)
		made, err := h.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("goref: provisioning %s: %v", pv.Name, err)
		}
		return made, nil
	}
	if strings.HasPrefix(class.Provisioner, "kubernetes.io/") {
		if !migrationOn[class.Provisioner] {
			return nil, nil
		}
		if driver, err = csitrans.New().GetCSINameFromInTreeName(class.Provisioner); err != nil {
			return nil, err
		}
		migrated = true
	}
	affinity, err := h.provisionedTopology(ctx, pvc, driver, host)
	if err != nil {
		return nil, err
	}
	name := "pvc-" + string(pvc.UID)
	handle := name
	if migrated {
		handle = migratedHandle(class.Provisioner, name)
	}
	if class.Provisioner == "kubernetes.io/gce-pd" {
		regional, err := gceReplicationType(class)
		if err == nil && regional {
			var zones []string
			if zones, err = h.regionalZones(class, affinity); err == nil {
				affinity, handle, err = regionalVolume(zones, name)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("goref: provisioning %s/%s for %s on node %s: %v", pvc.Namespace, pvc.Name, class.Provisioner, host, err)
		}
	}
	policy := v1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		policy = *class.ReclaimPolicy
	}
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1",
			Annotations: map[string]string{annProvisionedBy: class.Provisioner}},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: pvc.Spec.Resources.Requests[v1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			VolumeMode:                    pvc.Spec.VolumeMode,
			StorageClassName:              class.Name,
			PersistentVolumeReclaimPolicy: policy,
			ClaimRef:                      claimRef(pvc),
			NodeAffinity:                  affinity,
			PersistentVolumeSource: v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{
				Driver: driver, VolumeHandle: handle}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	if migrated {
		if pv, err = csitrans.New().TranslateCSIPVToInTree(pv); err != nil {
			return nil, fmt.Errorf("goref: provisioning %s/%s for %s on node %s: %v", pvc.Namespace, pvc.Name, class.Provisioner, host, err)
		}
	}
	h.volumeEvents.expect("PersistentVolume", framework.Add, pv)
	if pv, err = h.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("goref: provisioning %s: %v", name, err)
	}
	return pv, nil
}

// migrationOn holds the in-tree provisioners whose CSIMigration gates v1.23 turns on.
var migrationOn = map[string]bool{
	"kubernetes.io/gce-pd": true, "kubernetes.io/aws-ebs": true,
	"kubernetes.io/azure-disk": true, "kubernetes.io/cinder": true,
}

// migratedHandle is the volume id goref gives the disk a migrated driver creates for
// the volume name (a cloud's id, not known offline; docs/volume-bindings.md): GCE PD and
// Azure Disk name the disk after the volume, EBS's id is vol- and 17 hexadecimal digits
// of the SHA-256 of the name, Cinder's the digest's first 16 bytes as a UUID.
func migratedHandle(provisioner, name string) string {
	sum := sha256.Sum256([]byte(name))
	d := hex.EncodeToString(sum[:])
	switch provisioner {
	case "kubernetes.io/gce-pd":
		return "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/" + name
	case "kubernetes.io/aws-ebs":
		return "vol-" + d[:17]
	case "kubernetes.io/azure-disk":
		return "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/kscore/providers/Microsoft.Compute/disks/" + name
	}
	return d[:8] + "-" + d[8:12] + "-" + d[12:16] + "-" + d[16:20] + "-" + d[20:32]
}

// provisionedTopology is the node affinity of a volume driver provisions for host: one
// term of the host's values of the driver's topologyKeys in its CSINode (nil: no CSINode,
// no entry, no keys); a key the node lacks is an error (the provisioner fails).
func (h *harness) provisionedTopology(ctx context.Context, pvc *v1.PersistentVolumeClaim, driver, host string) (*v1.VolumeNodeAffinity, error) {
	csiNode, err := h.client.StorageV1().CSINodes().Get(ctx, host, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var keys []string
	for _, d := range csiNode.Spec.Drivers {
		if d.Name == driver {
			keys = d.TopologyKeys
			break
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	info, ok := h.cache.Dump().Nodes[host]
	if !ok || info.Node() == nil {
		return nil, fmt.Errorf("goref: provisioning %s/%s: node %s not in the cache", pvc.Namespace, pvc.Name, host)
	}
	term := v1.NodeSelectorTerm{}
	for _, k := range keys {
		value, ok := info.Node().Labels[k]
		if !ok {
			return nil, fmt.Errorf("goref: provisioning %s/%s: node %s lacks the topology label %q", pvc.Namespace, pvc.Name, host, k)
		}
		term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{
			Key: k, Operator: v1.NodeSelectorOpIn, Values: []string{value}})
	}
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{term}}}, nil
}

// waitCompleted returns once the informers' listers and every VolumeBinding binder hold
// what completeBindings wrote, and goref replay's handlers handled it, or after 30 s.
func (h *harness) waitCompleted(done completion) error {
	deadline := time.Now().Add(30 * time.Second)
	for !h.holdsCompleted(done) || h.volumeEvents.pending() > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("goref: the informers did not see the completed volume bindings")
		}
		time.Sleep(100 * time.Microsecond)
	}
	return nil
}

func (h *harness) holdsCompleted(done completion) bool {
	f := h.informers
	latest := map[string]*v1.PersistentVolumeClaim{} // (a claim listed twice: its last write)
	for _, c := range append(append([]*v1.PersistentVolumeClaim(nil), done.claims...), done.selected...) {
		latest[c.Namespace+"/"+c.Name] = c
	}
	for _, c := range latest {
		got, err := f.Core().V1().PersistentVolumeClaims().Lister().PersistentVolumeClaims(c.Namespace).Get(c.Name)
		if err != nil || got.ResourceVersion != c.ResourceVersion {
			return false
		}
	}
	for _, v := range done.volumes {
		got, err := f.Core().V1().PersistentVolumes().Lister().Get(v.Name)
		if err != nil || got.ResourceVersion != v.ResourceVersion {
			return false
		}
	}
	for _, vb := range h.binders.list {
		for _, c := range done.claims {
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: "goref-probe"},
				Spec: v1.PodSpec{Volumes: []v1.Volume{{Name: "v", VolumeSource: v1.VolumeSource{
					PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}}}}}
			bound, _, _, err := vb.Binder.GetPodVolumes(pod)
			if err != nil || len(bound) != 1 {
				return false
			}
		}
		if !binderHolds(vb.Binder, nil, done.volumes) {
			return false
		}
	}
	return true
}
