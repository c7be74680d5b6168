package dev.cuckoo.server.replication;

import dev.cuckoo.server.protocol.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * INFO's replication section and ROLE, on a master and on a replica, with Redis 7/8's fields in
 * Redis's order (Redis Sentinel parses them).
 */
final class ReplicationReport {
  private ReplicationReport() {}

  /** Appends INFO's replication section, field by field as Redis prints it. */
  static void info(Replication replication, StringBuilder out) {
    ReplicationSettings settings = replication.settings();
    out.append("# Replication\r\n");
    MasterLink current = replication.link();
    if (current == null) {
      field(out, "role", "master");
    } else {
      field(out, "role", "slave");
      long now = System.currentTimeMillis();
      long applied = replication.replicaOffset();
      boolean up = current.state == MasterLink.State.CONNECTED;
      field(out, "master_host", current.host);
      field(out, "master_port", current.port);
      field(out, "master_link_status", up ? "up" : "down");
      field(out, "master_last_io_seconds_ago", up ? (now - current.lastIoMillis) / 1000 : -1);
      field(out, "master_sync_in_progress", current.state == MasterLink.State.TRANSFER ? 1 : 0);
      field(out, "slave_read_repl_offset", applied);
      field(out, "slave_repl_offset", applied);
      if (current.state == MasterLink.State.TRANSFER) {
        long size = current.transferSize;
        long read = current.transferRead;
        field(out, "master_sync_total_bytes", size);
        field(out, "master_sync_read_bytes", read);
        field(out, "master_sync_left_bytes", size - read);
        field(
            out,
            "master_sync_perc",
            String.format(java.util.Locale.ROOT, "%.2f", size > 0 ? 100.0 * read / size : 0.0));
        field(out, "master_sync_last_io_seconds_ago", (now - current.lastIoMillis) / 1000);
      }
      if (!up) {
        long since = current.downSinceMillis;
        field(out, "master_link_down_since_seconds", since > 0 ? (now - since) / 1000 : -1);
      }
      if (current.redisMaster || replication.foreignWrites().total() > 0) {
        // a Redis master: what was skipped of the types this server does not hold
        field(out, "master_type", current.redisMaster ? "redis" : "unknown");
        field(out, "master_foreign_keys", replication.foreignKeys().total());
        field(out, "master_foreign_keys_by_type", replication.foreignKeys().toString());
        field(out, "master_foreign_writes", replication.foreignWrites().total());
        field(out, "master_foreign_writes_by_type", replication.foreignWrites().toString());
      }
      field(out, "slave_priority", settings.replicaPriority());
      field(out, "slave_read_only", settings.replicaReadOnly() ? 1 : 0);
      field(out, "replica_announced", 1);
    }
    List<Peer> listed = replication.listedPeers();
    field(out, "connected_slaves", listed.size());
    if (settings.minReplicasToWrite() > 0 && settings.minReplicasMaxLag() > 0) {
      field(out, "min_slaves_good_slaves", replication.goodReplicaCount());
    }
    long now = System.currentTimeMillis();
    for (int i = 0; i < listed.size(); i++) {
      Peer peer = listed.get(i);
      long lag = peer.state == Peer.State.ONLINE ? (now - peer.ackMillis) / 1000 : 0;
      out.append("slave")
          .append(i)
          .append(":ip=")
          .append(peer.ip())
          .append(",port=")
          .append(peer.listeningPort)
          .append(",state=")
          .append(peer.state.text)
          .append(",offset=")
          .append(peer.ackOffset)
          .append(",lag=")
          .append(lag)
          .append("\r\n");
    }
    Replication.Position position = replication.position();
    field(out, "master_failover_state", replication.failoverState());
    field(out, "master_replid", position.replid());
    field(out, "master_replid2", position.replid2());
    field(out, "master_repl_offset", position.offset());
    field(out, "second_repl_offset", position.secondOffset());
    field(out, "repl_backlog_active", position.backlogActive() ? 1 : 0);
    field(out, "repl_backlog_size", settings.backlogSize());
    field(out, "repl_backlog_first_byte_offset", position.backlogFirstByte());
    field(out, "repl_backlog_histlen", position.backlogHistlen());
  }

  private static void field(StringBuilder out, String name, Object value) {
    out.append(name).append(':').append(value).append("\r\n");
  }

  /** Answers ROLE as Redis does for a master or a replica. */
  static void role(Replication replication, Reply reply) {
    MasterLink current = replication.link();
    if (current == null) {
      List<Peer> online = new ArrayList<>();
      for (Peer peer : replication.listedPeers()) {
        if (peer.state == Peer.State.ONLINE) {
          online.add(peer);
        }
      }
      reply.array(3);
      reply.bulk("master");
      reply.integer(replication.position().offset());
      reply.array(online.size());
      for (Peer peer : online) {
        reply.array(3);
        reply.bulk(peer.ip());
        reply.bulk(Integer.toString(peer.listeningPort));
        reply.bulk(Long.toString(peer.ackOffset));
      }
      return;
    }
    reply.array(5);
    reply.bulk("slave");
    reply.bulk(current.host);
    reply.integer(current.port);
    reply.bulk(current.state.text);
    reply.integer(current.state == MasterLink.State.CONNECTED ? replication.replicaOffset() : -1);
  }
}
