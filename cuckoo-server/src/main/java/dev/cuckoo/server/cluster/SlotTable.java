package dev.cuckoo.server.cluster;

/**
 * An immutable picture of what routing a request needs from the cluster state: the owner of every
 * hash slot, the slots this node migrates or imports and with which node, whether the cluster is
 * ok, and whether this node is a replica (and of which master). {@link ClusterState} publishes a
 * new one whenever its configuration changes; the dispatcher reads the latest without taking the
 * state's monitor.
 *
 * <p>Nodes appear as {@link Route}s, one object per node within one table, so that "is this slot's
 * owner my master" is a reference comparison.
 */
public final class SlotTable {
  /**
   * A node as a redirect names it.
   *
   * @param name the node id
   * @param endpoint the address clients are sent to, {@code ip:port} (what MOVED and ASK print)
   * @param myself true for this node
   */
  public record Route(String name, String endpoint, boolean myself) {}

  /** The table of a node that knows no slot yet: no owner anywhere, cluster down. */
  static final SlotTable EMPTY = new SlotTable(null, null, null, false, null);

  private final Route[] owners;
  private final Route[] migratingTo;
  private final Route[] importingFrom;
  private final boolean ok;
  private final Route myMaster;

  /**
   * Creates a table; the arrays are taken over, not copied.
   *
   * @param owners the owner of each slot (null: unassigned), or null if no slot is assigned
   * @param migratingTo where each slot this node migrates goes, or null if no slot migrates
   * @param importingFrom where each slot this node imports comes from, or null if none is imported
   * @param ok whether the cluster state is ok
   * @param myMaster this node's master if it is a replica, else null
   */
  public SlotTable(
      Route[] owners, Route[] migratingTo, Route[] importingFrom, boolean ok, Route myMaster) {
    this.owners = owners;
    this.migratingTo = migratingTo;
    this.importingFrom = importingFrom;
    this.ok = ok;
    this.myMaster = myMaster;
  }

  /**
   * Returns the table of a cluster state's slot map (the caller holds the state's monitor while the
   * arrays are read).
   *
   * @param owners the owner of each slot
   * @param migratingTo the target of each slot this node migrates
   * @param importingFrom the source of each slot this node imports
   * @param ok whether the cluster state is ok
   * @param myself this node
   */
  static SlotTable of(
      ClusterNode[] owners,
      ClusterNode[] migratingTo,
      ClusterNode[] importingFrom,
      boolean ok,
      ClusterNode myself) {
    java.util.Map<ClusterNode, Route> routes = new java.util.IdentityHashMap<>();
    Route master =
        myself.isSlave() && myself.slaveOf != null ? route(routes, myself.slaveOf) : null;
    return new SlotTable(
        routes(routes, owners),
        routes(routes, migratingTo),
        routes(routes, importingFrom),
        ok,
        master);
  }

  /** Returns the routes of {@code nodes}, or null if every entry is null. */
  private static Route[] routes(java.util.Map<ClusterNode, Route> routes, ClusterNode[] nodes) {
    Route[] table = null;
    // slots come in long runs of one node: its route is looked up once a run, not once a slot
    ClusterNode previous = null;
    Route route = null;
    for (int slot = 0; slot < nodes.length; slot++) {
      ClusterNode node = nodes[slot];
      if (node != null) {
        if (table == null) {
          table = new Route[nodes.length];
        }
        if (node != previous) {
          route = route(routes, node);
          previous = node;
        }
        table[slot] = route;
      }
    }
    return table;
  }

  private static Route route(java.util.Map<ClusterNode, Route> routes, ClusterNode node) {
    return routes.computeIfAbsent(
        node, n -> new Route(n.name, n.ip + ":" + n.port, n.has(ClusterNode.MYSELF)));
  }

  /** Returns the node that serves {@code slot}, or null if no node does. */
  public Route owner(int slot) {
    return owners == null ? null : owners[slot];
  }

  /** Returns the node this node migrates {@code slot} to, or null if it does not migrate it. */
  public Route migratingTo(int slot) {
    return migratingTo == null ? null : migratingTo[slot];
  }

  /** Returns the node this node imports {@code slot} from, or null if it does not import it. */
  public Route importingFrom(int slot) {
    return importingFrom == null ? null : importingFrom[slot];
  }

  /** Returns true if the cluster state is ok (cluster_state:ok). */
  public boolean ok() {
    return ok;
  }

  /** Returns this node's master when this node is a replica, else null. */
  public Route myMaster() {
    return myMaster;
  }
}
