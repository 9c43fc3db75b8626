package main

// goref as the PersistentVolume controller's in-tree Azure File provisioner
// (kubernetes.io/azure-file, whose CSI migration v1.23 leaves off): the checks of
// pkg/volume/azure_file azureFileProvisioner.Provision that need no cloud, then the
// volume it creates, pvc-<claim uid>, with no labels and no node affinity. The storage
// account (hence the secret's name) is the cloud's choice: goref names it "kscore".

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const azureFilePlugin = "kubernetes.io/azure-file"

// azureFileVolume is the volume the plugin provisions for pvc of class, or its error.
func azureFileVolume(pvc *v1.PersistentVolumeClaim, class *storagev1.StorageClass) (*v1.PersistentVolume, error) {
	modes := []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce, v1.ReadOnlyMany, v1.ReadWriteMany}
	for _, m := range pvc.Spec.AccessModes {
		ok := false
		for _, p := range modes {
			ok = ok || m == p
		}
		if !ok {
			return nil, fmt.Errorf("invalid AccessModes %v: only AccessModes %v are supported", pvc.Spec.AccessModes, modes)
		}
	}
	if pvc.Spec.VolumeMode != nil && *pvc.Spec.VolumeMode == v1.PersistentVolumeBlock {
		return nil, fmt.Errorf("%s does not support block volume provisioning", azureFilePlugin)
	}
	capacity := pvc.Spec.Resources.Requests[v1.ResourceStorage]
	const gib = int64(1) << 30
	size := (capacity.Value() + gib - 1) / gib
	sku := ""
	for k, v := range class.Parameters {
		switch strings.ToLower(k) {
		case "skuname":
			sku = v
		case "location", "storageaccount", "secretnamespace", "resourcegroup", "sharename":
		case "tags":
			if v == "" {
				continue
			}
			for _, tag := range strings.Split(v, ",") {
				kv := strings.Split(tag, "=")
				if len(kv) != 2 || strings.TrimSpace(kv[0]) == "" {
					return nil, fmt.Errorf("Tags '%s' are invalid, the format should like: 'key1=value1,key2=value2'", v)
				}
			}
		default:
			return nil, fmt.Errorf("invalid option %q for volume plugin %s", k, azureFilePlugin)
		}
	}
	if pvc.Spec.Selector != nil {
		return nil, fmt.Errorf("claim.Spec.Selector is not supported for dynamic provisioning on Azure file")
	}
	if strings.HasPrefix(strings.ToLower(sku), "premium") && size < 100 {
		size = 100
	}
	name := "pvc-" + string(pvc.UID)
	namespace := pvc.Namespace
	policy := v1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		policy = *class.ReclaimPolicy
	}
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1", Labels: map[string]string{},
			Annotations: map[string]string{annProvisionedBy: azureFilePlugin}},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse(fmt.Sprintf("%dGi", size))},
			AccessModes:                   pvc.Spec.AccessModes,
			VolumeMode:                    pvc.Spec.VolumeMode,
			StorageClassName:              class.Name,
			PersistentVolumeReclaimPolicy: policy,
			ClaimRef:                      claimRef(pvc),
			PersistentVolumeSource: v1.PersistentVolumeSource{AzureFile: &v1.AzureFilePersistentVolumeSource{
				SecretName: "azure-storage-account-kscore-secret", ShareName: "kubernetes-dynamic-" + name,
				SecretNamespace: &namespace}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}, nil
}
