package integration

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// netnsCluster is a cluster whose nats-servers each run in a network namespace of their own, so
// that their route traffic crosses real network interfaces a test can cut. The namespaces are
// joined by veth pairs to a bridge in one more namespace (the hub), which the test's own
// namespace also reaches through a veth pair: the workers, the Go callers in the test process and
// the JavaScript and Python callers connect to the servers' addresses on that bridge as to any
// host. Cut drops, in each namespace, every packet of a route between the cut-off server and the
// others (iptables DROP on the route port, arriving packets only: nothing is refused or answered,
// the senders' TCP retransmits into silence), while client and monitoring traffic goes on; Heal
// removes the rules. Everything it makes lives in its namespaces (the host's end of its veth pair
// goes with the hub), deleted when the test ends; a crashed run's leftovers carry its process id
// in their names and are deleted by the next run.
type netnsCluster struct {
	prefix string   // every namespace's name starts with it: prefix+"hub", prefix+"n1", ...
	ips    []string // server i's address
}

const (
	netnsPrefix = "awpart-" // then the test process's id, a dash, random hex and a dash
	// The servers' ports: each namespace has ports of its own.
	netnsClientPort, netnsRoutePort, netnsHTTPPort = 4222, 6222, 8222
)

// newNetnsCluster makes the namespaces, addresses and bridge for n servers and returns the servers
// to start (not started), or why it cannot: not root, ip or iptables missing, or a step the
// machine refuses. What it made is deleted when the test ends, even when it fails half way.
func newNetnsCluster(t *testing.T, n int) ([]*natsProc, *netnsCluster, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil, nil, errors.New("not root")
	}
	for _, tool := range []string{"ip", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, nil, fmt.Errorf("%s not installed", tool)
		}
	}
	sweepStaleNetns(t)
	subnet, err := freeSubnet()
	if err != nil {
		return nil, nil, err
	}
	c := &netnsCluster{prefix: fmt.Sprintf("%s%d-%s-", netnsPrefix, os.Getpid(), randomHex(3))}
	names := []string{c.prefix + "hub"}
	for i := range n {
		names = append(names, fmt.Sprintf("%sn%d", c.prefix, i+1))
		c.ips = append(c.ips, fmt.Sprintf("%s.%d", subnet, 11+i))
	}
	var made []string
	t.Cleanup(func() {
		for _, ns := range made {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Logf("deleting network namespace %s: %v: %s", ns, err, out)
			}
		}
	})
	hub, hostIf := names[0], "awp"+randomHex(4)
	steps := [][]string{}
	for _, ns := range names {
		steps = append(steps, []string{"netns", "add", ns})
	}
	steps = append(steps,
		[]string{"-n", hub, "link", "add", "br0", "type", "bridge"},
		[]string{"-n", hub, "link", "set", "br0", "up"},
		[]string{"link", "add", hostIf, "type", "veth", "peer", "name", "host0", "netns", hub},
		[]string{"-n", hub, "link", "set", "host0", "master", "br0", "up"},
		[]string{"addr", "add", subnet + ".1/24", "dev", hostIf},
		[]string{"link", "set", hostIf, "up"})
	for i, ns := range names[1:] {
		peer := fmt.Sprintf("srv%d", i+1)
		steps = append(steps,
			[]string{"-n", ns, "link", "set", "lo", "up"},
			[]string{"-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", peer, "netns", hub},
			[]string{"-n", hub, "link", "set", peer, "master", "br0", "up"},
			[]string{"-n", ns, "addr", "add", c.ips[i] + "/24", "dev", "eth0"},
			[]string{"-n", ns, "link", "set", "eth0", "up"})
	}
	for _, step := range steps {
		if out, err := exec.Command("ip", step...).CombinedOutput(); err != nil {
			return nil, nil, fmt.Errorf("ip %s: %v: %s", strings.Join(step, " "), err, strings.TrimSpace(string(out)))
		}
		if step[0] == "netns" {
			made = append(made, step[2])
		}
	}
	if out, err := exec.Command("ip", "netns", "exec", names[1], "iptables", "-w", "-S", "INPUT").CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("iptables in a network namespace: %v: %s", err, strings.TrimSpace(string(out)))
	}
	nodes := make([]*natsProc, n)
	for i := range nodes {
		routes := make([]string, n)
		for j := range routes {
			routes[j] = fmt.Sprintf("nats-route://%s:%d", c.ips[j], netnsRoutePort)
		}
		nodes[i] = &natsProc{t: t, port: netnsClientPort, store: t.TempDir(), host: c.ips[i], netns: names[1+i]}
		nodes[i].cluster.Name, nodes[i].cluster.ClusterName = fmt.Sprintf("n%d", i+1), "it"
		nodes[i].cluster.Port, nodes[i].cluster.HTTPPort, nodes[i].cluster.Routes = netnsRoutePort, netnsHTTPPort, routes
		nodes[i].cluster.PingInterval, nodes[i].cluster.PingMax = routePing, routePingMax
	}
	return nodes, c, nil
}

// iptables runs iptables in server i's namespace.
func (c *netnsCluster) iptables(i int, args ...string) error {
	args = append([]string{"netns", "exec", fmt.Sprintf("%sn%d", c.prefix, i+1), "iptables", "-w"}, args...)
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Cut drops every route packet between server victim and the others, both ways: each namespace
// drops what arrives from the other side to or from the route port (one rule per address, all
// namespaces at once). Client and monitoring traffic is not touched.
func (c *netnsCluster) Cut(victim int) error {
	errs := make(chan error, len(c.ips))
	for i := range c.ips {
		from := []string{c.ips[victim]}
		if i == victim {
			from = slices.Delete(slices.Clone(c.ips), victim, victim+1)
		}
		go func() {
			errs <- c.iptables(i, "-A", "INPUT", "-s", strings.Join(from, ","), "-p", "tcp", "-m", "multiport", "--ports", strconv.Itoa(netnsRoutePort), "-j", "DROP")
		}()
	}
	var err error
	for range c.ips {
		err = errors.Join(err, <-errs)
	}
	return err
}

// Heal removes every rule Cut added.
func (c *netnsCluster) Heal() error {
	var err error
	for i := range c.ips {
		err = errors.Join(err, c.iptables(i, "-F", "INPUT"))
	}
	return err
}

// sweepStaleNetns deletes the network namespaces a test process that is gone left behind (a run
// killed before its clean-up); the host's ends of their veth pairs go with them.
func sweepStaleNetns(t *testing.T) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest, ok := strings.CutPrefix(name, netnsPrefix)
		if !ok {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		p, err := strconv.Atoi(pid)
		if err != nil || p == os.Getpid() || !errors.Is(syscall.Kill(p, 0), syscall.ESRCH) {
			continue
		}
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Logf("deleting a stale network namespace %s: %v: %s", name, err, out)
		} else {
			t.Logf("deleted a stale network namespace %s (its test process %d is gone)", name, p)
		}
	}
}

// freeSubnet picks a random 10.x.y.0/24 that no address or route of this namespace overlaps
// (another run of the test may hold one at the same time).
func freeSubnet() (string, error) {
	out, err := exec.Command("ip", "-4", "-o", "route", "show", "table", "all").Output()
	if err != nil {
		return "", fmt.Errorf("ip route: %v", err)
	}
	var taken []*net.IPNet
	for _, f := range strings.Fields(string(out)) {
		if f == "default" {
			continue
		}
		if !strings.Contains(f, "/") {
			f += "/32"
		}
		if _, n, err := net.ParseCIDR(f); err == nil {
			taken = append(taken, n)
		}
	}
	for range 50 {
		b := make([]byte, 2)
		_, _ = rand.Read(b)
		candidate := &net.IPNet{IP: net.IPv4(10, 64+b[0]%128, b[1], 0).To4(), Mask: net.CIDRMask(24, 32)}
		free := true
		for _, n := range taken {
			if n.Contains(candidate.IP) || candidate.Contains(n.IP) {
				free = false
				break
			}
		}
		if free {
			return fmt.Sprintf("10.%d.%d", candidate.IP[1], candidate.IP[2]), nil
		}
	}
	return "", errors.New("no free 10.x.y.0/24 subnet")
}
