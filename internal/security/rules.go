package security

import (
	"net/netip"
	"strconv"
	"strings"
)

// rule reads one security group rule of group (rendered) in direction
// ("ingress" or "egress"). One it cannot read keeps its text in Raw.
func rule(v any, direction, group string) Rule {
	r := Rule{Direction: direction, Group: group}
	m, ok := v.(map[string]any)
	if !ok {
		r.Raw = compact(v)
		return r
	}
	fail := func() Rule { return Rule{Direction: direction, Group: group, Raw: compact(v)} }
	get := func(k string) (string, bool, error) {
		x, ok := m[k]
		if !ok {
			return "", false, nil
		}
		s, err := str(x)
		return s, true, err
	}
	p, _, err := get("IpProtocol")
	if err != nil {
		return fail()
	}
	r.Protocol = protocol(p)
	if r.FromPort, _, err = get("FromPort"); err != nil {
		return fail()
	}
	if r.ToPort, _, err = get("ToPort"); err != nil {
		return fail()
	}
	r.Description, _, _ = get("Description")
	peers := [][2]string{
		{"CidrIp", "cidr"}, {"CidrIpv6", "cidrv6"},
		{"SourceSecurityGroupId", "group"}, {"SourceSecurityGroupName", "group"}, {"DestinationSecurityGroupId", "group"},
		{"SourcePrefixListId", "prefixList"}, {"DestinationPrefixListId", "prefixList"},
	}
	for _, pk := range peers {
		s, ok, err := get(pk[0])
		if err != nil {
			return fail()
		}
		if ok {
			if r.Peer != "" {
				return fail() // two peers: not a rule CloudFormation accepts
			}
			r.Peer, r.PeerKind = s, pk[1]
		}
	}
	if owner, ok, _ := get("SourceSecurityGroupOwnerId"); ok && r.PeerKind == "group" {
		r.Peer = owner + "/" + r.Peer
	}
	return r
}

// protocol names an IpProtocol the way a reader knows it.
func protocol(p string) string {
	switch strings.ToLower(p) {
	case "-1", "all":
		return "all"
	case "6", "tcp":
		return "tcp"
	case "17", "udp":
		return "udp"
	case "1", "icmp":
		return "icmp"
	case "58", "icmpv6":
		return "icmpv6"
	}
	return p
}

// openIngress reports an ingress rule from anywhere on the internet.
func openIngress(r Rule) bool {
	return r.Direction == "ingress" && (r.Peer == "0.0.0.0/0" || r.Peer == "::/0")
}

// ruleCovers says whether rule w allows everything rule n allows.
func ruleCovers(w, n Rule) tri {
	if w.Raw != "" || n.Raw != "" || w.Direction != n.Direction || w.PeerKind != n.PeerKind {
		return no
	}
	t := eq(w.Group, n.Group)
	if t == no {
		return no
	}
	switch {
	case w.Protocol == "all":
	case w.Protocol != n.Protocol:
		return no
	default:
		t = both(t, portsCover(w, n))
	}
	return both(t, peerCovers(w, n))
}

func portsCover(w, n Rule) tri {
	wf, wt, ok1 := portRange(w)
	nf, nt, ok2 := portRange(n)
	if !ok1 || !ok2 {
		if symbolic(w.FromPort + w.ToPort + n.FromPort + n.ToPort) {
			return maybe
		}
		return no
	}
	if wf <= nf && nt <= wt {
		return yes
	}
	return no
}

// portRange is a rule's ports as numbers; -1 (ICMP's "any") is all.
func portRange(r Rule) (int, int, bool) {
	if r.FromPort == "" && r.ToPort == "" {
		return 0, 65535, true
	}
	f, err1 := strconv.Atoi(r.FromPort)
	t, err2 := strconv.Atoi(r.ToPort)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	if f == -1 || t == -1 {
		return 0, 65535, true
	}
	return f, t, true
}

func peerCovers(w, n Rule) tri {
	if w.PeerKind == "cidr" || w.PeerKind == "cidrv6" {
		wp, err1 := netip.ParsePrefix(w.Peer)
		np, err2 := netip.ParsePrefix(n.Peer)
		if err1 != nil || err2 != nil {
			return eq(w.Peer, n.Peer)
		}
		if wp.Bits() <= np.Bits() && wp.Contains(np.Addr()) {
			return yes
		}
		return no
	}
	return eq(w.Peer, n.Peer)
}
