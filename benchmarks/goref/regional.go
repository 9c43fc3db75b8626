package main

// goref as the GCE PD CSI driver's external provisioner and driver for a regional disk
// (a kubernetes.io/gce-pd class with replication-type: regional-pd, migrated to
// pd.csi.storage.gke.io), on the claim's selected node (docs/volume-bindings.md):
//   - the class as the driver's (csi-translation-lib's TranslateInTreeStorageClassToCSI,
//     the real library): zone/zones parameters become allowed topologies of
//     topology.gke.io/zone, allowedTopologies' zone keys are renamed to it;
//   - the external provisioner's accessibility requirements (delayed binding, strict
//     topology off): requisite = the allowed topologies split into one value per key, or
//     without any, the values of the selected node's CSINode topology keys on every node
//     that has them all; sorted (shorter first, then key by key, value by value),
//     duplicates dropped; preferred = requisite rotated to the first term the selected
//     node's topology holds;
//   - the driver: replication-type read lowercased (none or regional-pd), the zones of
//     the first two preferred terms, of one region; the volume's topology one term per
//     zone, its id projects/UNSPECIFIED/regions/<region>/disks/<name>.
// Where the provisioner or the driver would fail, goref fails.

import (
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	csitrans "k8s.io/csi-translation-lib"
)

const gceZoneKey = "topology.gke.io/zone"

// segment is one key's value in a topology term.
type segment struct{ key, value string }

// gceReplicationType says whether the class asks the driver for a regional disk.
func gceReplicationType(class *storagev1.StorageClass) (bool, error) {
	found := map[string]bool{}
	for k, v := range class.Parameters {
		if strings.ToLower(k) == "replication-type" && v != "" {
			found[strings.ToLower(v)] = true
		}
	}
	if len(found) > 1 {
		return false, fmt.Errorf("parameters give several replication-type values")
	}
	for v := range found {
		switch v {
		case "none":
			return false, nil
		case "regional-pd":
			return true, nil
		default:
			return false, fmt.Errorf("CreateVolume replication type '%s' is not supported", v)
		}
	}
	return false, nil
}

// regionalZones picks a regional disk's two zones; affinity is the zonal volume's for
// the selected node (its one term holds the node's values of the driver's topology keys).
func (h *harness) regionalZones(class *storagev1.StorageClass, affinity *v1.VolumeNodeAffinity) ([]string, error) {
	if affinity == nil {
		return nil, fmt.Errorf("the selected node's CSINode gives the driver no topology keys")
	}
	var keys []string
	selected := map[segment]bool{}
	for _, e := range affinity.Required.NodeSelectorTerms[0].MatchExpressions {
		keys = append(keys, e.Key)
		selected[segment{e.Key, e.Values[0]}] = true
	}
	csiClass, err := csitrans.New().TranslateInTreeStorageClassToCSI("kubernetes.io/gce-pd", class.DeepCopy())
	if err != nil {
		return nil, err
	}
	var requisite [][]segment
	for _, term := range csiClass.AllowedTopologies {
		terms := [][]segment{{}}
		for _, e := range term.MatchLabelExpressions {
			var next [][]segment
			for _, v := range e.Values {
				for _, t := range terms {
					next = append(next, append(append([]segment{}, t...), segment{e.Key, v}))
				}
			}
			terms = next
		}
		if len(term.MatchLabelExpressions) > 0 {
			requisite = append(requisite, terms...)
		}
	}
	if len(requisite) == 0 {
		for _, info := range h.cache.Dump().Nodes {
			n := info.Node()
			if n == nil {
				continue
			}
			var t []segment
			for _, k := range keys {
				if v, ok := n.Labels[k]; ok {
					t = append(t, segment{k, v})
				}
			}
			if len(t) == len(keys) {
				requisite = append(requisite, t)
			}
		}
	}
	requisite = sortedTerms(requisite)
	first := -1
	for i, t := range requisite {
		inside := true
		for _, s := range t {
			inside = inside && selected[s]
		}
		if inside {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("topology of the selected node is not in requisite %v", requisite)
	}
	preferred := append(append([][]segment{}, requisite[first:]...), requisite[:first]...)
	var zones []string
	for _, t := range preferred {
		if len(zones) == 2 {
			break
		}
		zone := ""
		for _, s := range t {
			if s.key == gceZoneKey {
				zone = s.value
			}
		}
		if zone == "" {
			return nil, fmt.Errorf("topologies specified but no zone specified in %v", t)
		}
		zones = append(zones, zone)
	}
	if len(zones) < 2 {
		return nil, fmt.Errorf("need 2 zones from topology, only got %d unique zones", len(zones))
	}
	if zones[0] == zones[1] {
		return nil, fmt.Errorf("the two zones are the same: %s", zones[0])
	}
	return zones, nil
}

// sortedTerms sorts each term's segments and the terms, and drops repeated terms.
func sortedTerms(terms [][]segment) [][]segment {
	less := func(a, b segment) bool { return a.key < b.key || (a.key == b.key && a.value < b.value) }
	for _, t := range terms {
		sort.Slice(t, func(i, j int) bool { return less(t[i], t[j]) })
	}
	sort.Slice(terms, func(i, j int) bool {
		a, b := terms[i], terms[j]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		for k := range a {
			if a[k] != b[k] {
				return less(a[k], b[k])
			}
		}
		return false
	})
	var out [][]segment
	for _, t := range terms {
		if len(out) > 0 && fmt.Sprint(out[len(out)-1]) == fmt.Sprint(t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// regionalVolume is the regional disk's CSI node affinity (one term per zone) and id.
func regionalVolume(zones []string, name string) (*v1.VolumeNodeAffinity, string, error) {
	region := ""
	for _, z := range zones {
		parts := strings.Split(z, "-")
		if len(parts) != 3 {
			return nil, "", fmt.Errorf("zone in unexpected format, expected: {locale}-{region}-{zone}, got: %v", z)
		}
		r := parts[0] + "-" + parts[1]
		if region != "" && r != region {
			return nil, "", fmt.Errorf("multiple or no regions gotten from zones, got: %v", zones)
		}
		region = r
	}
	var terms []v1.NodeSelectorTerm
	for _, z := range zones {
		terms = append(terms, v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
			{Key: gceZoneKey, Operator: v1.NodeSelectorOpIn, Values: []string{z}}}})
	}
	affinity := &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: terms}}
	return affinity, "projects/UNSPECIFIED/regions/" + region + "/disks/" + name, nil
}
