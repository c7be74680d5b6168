package dev.cuckoo.server.cluster;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;

/**
 * A running cluster node: its state, loaded from (or first written to) {@code nodes.conf}, the bus
 * listening on the bus port, and the cron that pings and detects failures every 100 ms.
 */
public final class Cluster implements AutoCloseable {
  private static final System.Logger LOGGER = System.getLogger(Cluster.class.getName());

  /** How often the cron runs, as Redis's clusterCron (10 times a second). */
  static final long CRON_PERIOD_MILLIS = 100;

  /**
   * What a cluster node is started with.
   *
   * @param bind the addresses to listen on, separated by spaces
   * @param port the client port
   * @param busPort the cluster bus port
   * @param nodeTimeoutMillis cluster-node-timeout
   * @param configFile the nodes.conf path
   */
  public record Options(
      String bind, int port, int busPort, long nodeTimeoutMillis, Path configFile) {}

  private final ClusterState state;
  private final ClusterBus bus;

  private Cluster(ClusterState state, ClusterBus bus) {
    this.state = state;
    this.bus = bus;
  }

  /**
   * Loads nodes.conf (or creates this node with a new id and writes it), listens on the bus port
   * and starts the cron.
   *
   * @throws CorruptNodesFile if nodes.conf exists and does not parse
   * @throws IOException if nodes.conf cannot be written at first start or the bus port is taken
   */
  public static Cluster start(Options options, SlotKeys keys) throws IOException {
    return start(options, keys, null);
  }

  /**
   * Starts a node whose bus links are secured by {@code security} (null: plaintext), as {@link
   * #start(Options, SlotKeys)} does otherwise.
   *
   * @throws IOException as {@link #start(Options, SlotKeys)}
   */
  public static Cluster start(Options options, SlotKeys keys, BusSecurity security)
      throws IOException {
    ClusterBus bus = new ClusterBus(security);
    ClusterState state =
        new ClusterState(
            new ClusterState.Settings(
                options.port(), options.busPort(), options.nodeTimeoutMillis(), true),
            bus,
            keys,
            System::currentTimeMillis,
            NodesFile.saver(options.configFile()));
    NodesFile.Content content = NodesFile.read(options.configFile());
    if (content != null) {
      state.load(content);
    } else {
      LOGGER.log(Level.INFO, "No cluster configuration found, I''m {0}", state.myId());
      String error = state.saveConfig();
      if (error != null) {
        throw new IOException(
            "cannot write the cluster config file " + options.configFile() + ": " + error);
      }
    }
    bus.state(state);
    bus.listen(options.bind(), options.busPort());
    bus.every(CRON_PERIOD_MILLIS, state::cron);
    return new Cluster(state, bus);
  }

  /** Returns the cluster state. */
  public ClusterState state() {
    return state;
  }

  /** Stops the bus and writes nodes.conf once more. */
  @Override
  public void close() {
    bus.close();
    state.closeAll();
    state.saveConfig();
  }
}
