// Package integration runs the worker as production does: the worker binary as separate
// processes, a nats-server in its own process (this test binary re-executed as an embedded
// nats-server helper) and a MinIO process. The tests kill, stop and restart those processes under
// load and count what was sent, answered, lost and duplicated. The cluster scenario runs three such
// nats-server processes routed into one JetStream cluster; the partition scenario runs them in
// network namespaces of their own and drops their route packets (as root, where ip and iptables
// work), or routes them through TCP proxies it can cut; the TLS and credentials scenario runs an
// operator-mode nats-server requiring TLS in the test process and a second MinIO speaking HTTPS.
package integration
