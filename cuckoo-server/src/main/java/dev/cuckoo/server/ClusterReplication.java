package dev.cuckoo.server;

import dev.cuckoo.server.cluster.NodeReplication;
import dev.cuckoo.server.command.ServerContext;
import dev.cuckoo.server.config.Config;
import dev.cuckoo.server.config.Parameters;
import dev.cuckoo.server.replication.Replication;
import dev.cuckoo.server.session.ClientPause;

/**
 * The server's replication and client pause as a cluster node drives them: CLUSTER REPLICATE and a
 * lost master's slots make the node follow a master with today's replication stream, an elected
 * replica stops following, and a master pauses writers while its replica takes over.
 */
final class ClusterReplication implements NodeReplication {
  private final ServerContext context;
  private final Replication replication;
  private final Config config;

  ClusterReplication(ServerContext context, Replication replication, Config config) {
    this.context = context;
    this.replication = replication;
    this.config = config;
  }

  @Override
  public void follow(String ip, int port) {
    replication.replicaOf(ip, port);
  }

  @Override
  public void promote() {
    replication.promote();
  }

  @Override
  public boolean following() {
    return replication.isReplica();
  }

  @Override
  public long offset() {
    return replication.streamOffset();
  }

  @Override
  public long masterDataAgeMillis() {
    return replication.masterDataAgeMillis();
  }

  @Override
  public void pauseWrites(long untilMillis) {
    context.clientPause().pause(ClientPause.Purpose.FAILOVER, untilMillis, ClientPause.Mode.WRITE);
  }

  @Override
  public void unpauseWrites() {
    context.clientPause().unpause(ClientPause.Purpose.FAILOVER);
  }

  @Override
  public FailoverSettings settings() {
    return new FailoverSettings(
        config.get(Parameters.CLUSTER_REPLICA_VALIDITY_FACTOR),
        config.get(Parameters.CLUSTER_MIGRATION_BARRIER),
        config.get(Parameters.CLUSTER_ALLOW_REPLICA_MIGRATION),
        config.get(Parameters.REPL_PING_REPLICA_PERIOD) * 1000);
  }
}
