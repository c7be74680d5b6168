package dev.cuckoo.server.cluster;

import dev.cuckoo.server.cluster.SlotTable.Route;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Makes the next {@link SlotTable} of a cluster state from the last one and the slots that changed
 * since: only the pages that hold a changed slot are built again, the others are shared. The state
 * tells it of every slot it changes ({@link #slotChanged}) or of a change of many ({@link
 * #allChanged}), under the state's monitor, and asks for the table to publish ({@link #next}).
 *
 * <p>A route names a node as it was when the route was made (id, address, whether it is this node).
 * Every table shares the routes of the one before it, so {@link #next} first checks that each node
 * it made a route for still has that id and address; if one changed (a renamed node, an address
 * learnt from the bus), the whole table is built again with new routes.
 */
final class SlotTableUpdater {
  /** A route and the node's fields it was made from. */
  private record Made(Route route, String name, String ip, int port, boolean myself) {
    boolean stillDescribes(ClusterNode node) {
      return node.port == port
          && node.has(ClusterNode.MYSELF) == myself
          && node.name.equals(name)
          && node.ip.equals(ip);
    }
  }

  private final ClusterNode[] owners;
  private final ClusterNode[] migratingTo;
  private final ClusterNode[] importingFrom;
  // one bit per page that holds a slot changed since the last table
  private final long[] dirtyPages = new long[(SlotTable.PAGES + 63) / 64];
  private boolean allDirty = true;
  private final Map<ClusterNode, Made> routes = new IdentityHashMap<>();
  private SlotTable last = SlotTable.EMPTY;

  /**
   * Creates the updater of a state's slot maps; the arrays are the state's own, read (never
   * changed) under its monitor.
   *
   * @param owners the owner of each slot
   * @param migratingTo the target of each slot this node migrates
   * @param importingFrom the source of each slot this node imports
   */
  SlotTableUpdater(ClusterNode[] owners, ClusterNode[] migratingTo, ClusterNode[] importingFrom) {
    this.owners = owners;
    this.migratingTo = migratingTo;
    this.importingFrom = importingFrom;
  }

  /** Notes that the owner, migrating target or importing source of {@code slot} changed. */
  void slotChanged(int slot) {
    int page = slot >>> SlotTable.PAGE_BITS;
    dirtyPages[page >>> 6] |= 1L << (page & 63);
  }

  /** Notes that any slot may have changed: the next table is built from scratch. */
  void allChanged() {
    allDirty = true;
  }

  /**
   * Returns the table of the slot maps as they are now, with {@code ok} and this node's master; the
   * last table itself if nothing it holds changed.
   *
   * @param ok whether the cluster state is ok
   * @param myself this node
   */
  SlotTable next(boolean ok, ClusterNode myself) {
    if (!allDirty) {
      for (Map.Entry<ClusterNode, Made> made : routes.entrySet()) {
        if (!made.getValue().stillDescribes(made.getKey())) {
          allDirty = true;
          break;
        }
      }
    }
    Route[][] ownerPages;
    Route[][] migratingPages;
    Route[][] importingPages;
    if (allDirty) {
      routes.clear();
      ownerPages = new Route[SlotTable.PAGES][];
      migratingPages = new Route[SlotTable.PAGES][];
      importingPages = new Route[SlotTable.PAGES][];
      for (int page = 0; page < SlotTable.PAGES; page++) {
        ownerPages[page] = page(owners, page);
        migratingPages[page] = page(migratingTo, page);
        importingPages[page] = page(importingFrom, page);
      }
    } else {
      Route master = master(myself);
      if (noDirtyPage() && ok == last.ok() && master == last.myMaster()) {
        return last;
      }
      ownerPages = last.ownerPages().clone();
      migratingPages = last.migratingPages().clone();
      importingPages = last.importingPages().clone();
      for (int word = 0; word < dirtyPages.length; word++) {
        for (long bits = dirtyPages[word]; bits != 0; bits &= bits - 1) {
          int page = word * 64 + Long.numberOfTrailingZeros(bits);
          ownerPages[page] = page(owners, page);
          migratingPages[page] = page(migratingTo, page);
          importingPages[page] = page(importingFrom, page);
        }
      }
    }
    java.util.Arrays.fill(dirtyPages, 0);
    allDirty = false;
    last = SlotTable.ofPages(ownerPages, migratingPages, importingPages, ok, master(myself));
    return last;
  }

  private boolean noDirtyPage() {
    for (long word : dirtyPages) {
      if (word != 0) {
        return false;
      }
    }
    return true;
  }

  private Route master(ClusterNode myself) {
    return myself.isSlave() && myself.slaveOf != null ? route(myself.slaveOf) : null;
  }

  /** Returns the routes of one page of {@code nodes}, or null if it has no entry. */
  private Route[] page(ClusterNode[] nodes, int page) {
    Route[] routesOfPage = null;
    int base = page << SlotTable.PAGE_BITS;
    // slots come in long runs of one node: its route is looked up once a run, not once a slot
    ClusterNode previous = null;
    Route route = null;
    for (int i = 0; i < SlotTable.PAGE_SIZE; i++) {
      ClusterNode node = nodes[base + i];
      if (node != null) {
        if (routesOfPage == null) {
          routesOfPage = new Route[SlotTable.PAGE_SIZE];
        }
        if (node != previous) {
          route = route(node);
          previous = node;
        }
        routesOfPage[i] = route;
      }
    }
    return routesOfPage;
  }

  private Route route(ClusterNode node) {
    Made made = routes.get(node);
    if (made == null) {
      made =
          new Made(
              SlotTable.newRoute(node),
              node.name,
              node.ip,
              node.port,
              node.has(ClusterNode.MYSELF));
      routes.put(node, made);
    }
    return made.route();
  }
}
