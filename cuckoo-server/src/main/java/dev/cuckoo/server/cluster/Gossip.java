package dev.cuckoo.server.cluster;

/**
 * One entry of a PING/PONG/MEET gossip section (Redis's clusterMsgDataGossip, 104 bytes): what the
 * sender knows about another node.
 *
 * @param nodeName the node's 40-character id
 * @param pingSentSeconds when the sender last pinged it (Unix seconds, 0: no ping pending)
 * @param pongReceivedSeconds when the sender last heard its pong (Unix seconds)
 * @param ip its address as the sender knows it
 * @param port its client port
 * @param cport its cluster bus port
 * @param flags its flags (the CLUSTER_NODE_* bits of {@link ClusterNode})
 * @param pport its plaintext client port (0 without TLS)
 */
public record Gossip(
    String nodeName,
    long pingSentSeconds,
    long pongReceivedSeconds,
    String ip,
    int port,
    int cport,
    int flags,
    int pport) {}
