package dev.cuckoo.server.cluster;

import java.util.IdentityHashMap;
import java.util.Map;

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
  /*
   * The three slot maps are kept in pages of PAGE_SIZE slots (a null page: no entry in it). A table
   * that differs from the one before in a few slots shares every other page with it: publishing
   * the change of one slot copies one page of each map and the three page directories (128
   * references each), not 3 x 16,384 entries (SlotTableUpdater does this). Reading a slot costs
   * one more array load than a flat array.
   */
  static final int PAGE_BITS = 7;
  static final int PAGE_SIZE = 1 << PAGE_BITS;
  static final int PAGE_MASK = PAGE_SIZE - 1;
  static final int PAGES = HashSlots.SLOTS >>> PAGE_BITS;

  /**
   * A node as a redirect names it.
   *
   * @param name the node id
   * @param endpoint the address clients are sent to, {@code ip:port} (what MOVED and ASK print)
   * @param myself true for this node
   */
  public record Route(String name, String endpoint, boolean myself) {}

  /** The table of a node that knows no slot yet: no owner anywhere, cluster down. */
  static final SlotTable EMPTY =
      new SlotTable(new Route[PAGES][], new Route[PAGES][], new Route[PAGES][], false, null);

  private final Route[][] owners;
  private final Route[][] migratingTo;
  private final Route[][] importingFrom;
  private final boolean ok;
  private final Route myMaster;
  // whether any slot is migrating or importing (a page of either directory is not null)
  private final boolean migrations;

  /**
   * Creates a table from one route per slot; the arrays are read, not kept.
   *
   * @param owners the owner of each slot (null: unassigned), or null if no slot is assigned
   * @param migratingTo where each slot this node migrates goes, or null if no slot migrates
   * @param importingFrom where each slot this node imports comes from, or null if none is imported
   * @param ok whether the cluster state is ok
   * @param myMaster this node's master if it is a replica, else null
   */
  public SlotTable(
      Route[] owners, Route[] migratingTo, Route[] importingFrom, boolean ok, Route myMaster) {
    this(pages(owners), pages(migratingTo), pages(importingFrom), ok, myMaster);
  }

  /** Creates a table of pages; the directories and the pages are taken over, not copied. */
  private SlotTable(
      Route[][] owners,
      Route[][] migratingTo,
      Route[][] importingFrom,
      boolean ok,
      Route myMaster) {
    this.owners = owners;
    this.migratingTo = migratingTo;
    this.importingFrom = importingFrom;
    this.ok = ok;
    this.myMaster = myMaster;
    this.migrations = anyPage(migratingTo) || anyPage(importingFrom);
  }

  private static boolean anyPage(Route[][] pages) {
    for (Route[] page : pages) {
      if (page != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns a table made of page directories ({@link #PAGES} pages of {@link #PAGE_SIZE} routes, a
   * null page for one without entries); they are taken over, and the pages may be shared with other
   * tables, so neither may change afterwards.
   */
  static SlotTable ofPages(
      Route[][] owners,
      Route[][] migratingTo,
      Route[][] importingFrom,
      boolean ok,
      Route myMaster) {
    return new SlotTable(owners, migratingTo, importingFrom, ok, myMaster);
  }

  private static Route[][] pages(Route[] slots) {
    Route[][] pages = new Route[PAGES][];
    if (slots == null) {
      return pages;
    }
    for (int slot = 0; slot < slots.length; slot++) {
      if (slots[slot] != null) {
        int page = slot >>> PAGE_BITS;
        if (pages[page] == null) {
          pages[page] = new Route[PAGE_SIZE];
        }
        pages[page][slot & PAGE_MASK] = slots[slot];
      }
    }
    return pages;
  }

  /**
   * Returns the table of a cluster state's slot map, built from scratch (the caller holds the
   * state's monitor while the arrays are read).
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
    Map<ClusterNode, Route> routes = new IdentityHashMap<>();
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
  private static Route[] routes(Map<ClusterNode, Route> routes, ClusterNode[] nodes) {
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

  private static Route route(Map<ClusterNode, Route> routes, ClusterNode node) {
    return routes.computeIfAbsent(node, SlotTable::newRoute);
  }

  /** Returns a new route to {@code node} as it is now. */
  static Route newRoute(ClusterNode node) {
    return new Route(node.name, node.ip + ":" + node.port, node.has(ClusterNode.MYSELF));
  }

  /** Returns the node that serves {@code slot}, or null if no node does. */
  public Route owner(int slot) {
    return at(owners, slot);
  }

  /** Returns the node this node migrates {@code slot} to, or null if it does not migrate it. */
  public Route migratingTo(int slot) {
    return at(migratingTo, slot);
  }

  /** Returns the node this node imports {@code slot} from, or null if it does not import it. */
  public Route importingFrom(int slot) {
    return at(importingFrom, slot);
  }

  private static Route at(Route[][] pages, int slot) {
    Route[] page = pages[slot >>> PAGE_BITS];
    return page == null ? null : page[slot & PAGE_MASK];
  }

  /** Returns true if this node migrates or imports any slot. */
  public boolean hasMigrations() {
    return migrations;
  }

  /** Returns true if the cluster state is ok (cluster_state:ok). */
  public boolean ok() {
    return ok;
  }

  /** Returns this node's master when this node is a replica, else null. */
  public Route myMaster() {
    return myMaster;
  }

  /** Returns the page directory of the owners (shared, never to be changed). */
  Route[][] ownerPages() {
    return owners;
  }

  /** Returns the page directory of the migrating slots (shared, never to be changed). */
  Route[][] migratingPages() {
    return migratingTo;
  }

  /** Returns the page directory of the importing slots (shared, never to be changed). */
  Route[][] importingPages() {
    return importingFrom;
  }

  /**
   * Returns true if {@code other} routes every slot as this table does (routes compared by value),
   * with the same state and master: what a table built from scratch must agree with.
   */
  boolean routesEqual(SlotTable other) {
    if (ok != other.ok || !java.util.Objects.equals(myMaster, other.myMaster)) {
      return false;
    }
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      if (!java.util.Objects.equals(owner(slot), other.owner(slot))
          || !java.util.Objects.equals(migratingTo(slot), other.migratingTo(slot))
          || !java.util.Objects.equals(importingFrom(slot), other.importingFrom(slot))) {
        return false;
      }
    }
    return true;
  }
}
