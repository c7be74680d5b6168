/**
 * Redis Cluster membership: the cluster bus (Redis 7.0's binary messages over Netty), the node
 * table with its epochs and slot map, failure detection, replica election and manual failover
 * ({@code Failover}), and {@code nodes.conf}. It reads the keyspace only through {@link
 * dev.cuckoo.server.cluster.SlotKeys} and drives replication only through {@link
 * dev.cuckoo.server.cluster.NodeReplication}; the CLUSTER command's replies are written by the
 * command package from what {@link dev.cuckoo.server.cluster.ClusterState} answers.
 */
package dev.cuckoo.server.cluster;
