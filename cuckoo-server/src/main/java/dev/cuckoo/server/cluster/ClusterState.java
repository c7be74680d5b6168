package dev.cuckoo.server.cluster;

import io.netty.util.NetUtil;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The cluster as this node sees it (Redis's clusterState): the nodes by id, the slot map with its
 * migrating and importing slots, the epochs, the failure detector, and what every bus message
 * changes. Every public method is synchronized on this object; the bus, the cron and the commands
 * call in from their own threads. After each call that changed the configuration the state writes
 * {@code nodes.conf} through its {@link Saver}: a command before it returns (so before its reply),
 * under the monitor; a bus message or the cron after releasing the monitor, so that a command that
 * comes meanwhile waits neither for that write nor for its fsync (its own write holds both changes;
 * the bus's forced write is made again if a newer, unforced one took its place).
 */
public final class ClusterState {
  private static final System.Logger LOGGER = System.getLogger(ClusterState.class.getName());

  /** Writes the node configuration file (nodes.conf) with this content. */
  @FunctionalInterface
  public interface Saver {
    /**
     * Writes {@code content}, replacing the file atomically; forced to disk (file and directory) if
     * {@code fsync}, else left to the operating system, as Redis's {@code
     * clusterSaveConfig(do_fsync)}.
     */
    void save(String content, boolean fsync) throws IOException;

    /**
     * Does the part of a save that can run beside other saves (writing {@code content} to a
     * temporary place, forced to disk if {@code fsync}) and returns what puts it in place. By
     * default nothing is done before: the whole {@link #save} runs when it is put in place.
     *
     * @throws IOException if the content cannot be written
     */
    default StagedSave stage(String content, boolean fsync) throws IOException {
      return () -> save(content, fsync);
    }
  }

  /** A save made ready by {@link Saver#stage}, to be put in place or dropped. */
  @FunctionalInterface
  public interface StagedSave {
    /**
     * Replaces nodes.conf with the staged content (in the order of the contents, which the caller
     * keeps).
     *
     * @throws IOException if the file cannot be replaced
     */
    void replace() throws IOException;

    /** Finishes a save after {@link #replace} (forces the directory, if the save was forced). */
    default void afterReplace() {}

    /**
     * Drops the staged content: a newer one took its place first.
     *
     * @throws IOException if what was staged cannot be removed
     */
    default void discard() throws IOException {}
  }

  /**
   * A write of nodes.conf made ready under the monitor and done outside it.
   *
   * @param sequence the content's number
   * @param content the content
   * @param fsync whether it must be forced to disk
   */
  private record PendingSave(long sequence, String content, boolean fsync) {}

  /**
   * What the state needs from the server's settings.
   *
   * @param port this node's client port
   * @param busPort this node's cluster bus port
   * @param nodeTimeoutMillis cluster-node-timeout
   * @param requireFullCoverage cluster-require-full-coverage
   */
  public record Settings(
      int port, int busPort, long nodeTimeoutMillis, boolean requireFullCoverage) {}

  /** The cluster is ok. */
  public static final int STATE_OK = 0;

  /** The cluster is down. */
  public static final int STATE_FAIL = 1;

  /* Timings from Redis 7.0's cluster.h/cluster.c: failure reports are valid for 2 node timeouts; a
   * master waits 2 s after start before it calls the cluster ok; a master rejoining from a minority
   * waits the node timeout clamped to 0.5..5 s; a forgotten node stays out for 60 s. */
  private static final int FAIL_REPORT_VALIDITY_MULT = 2;
  private static final int FAIL_UNDO_TIME_MULT = 2;
  private static final long WRITABLE_DELAY_MILLIS = 2000;
  private static final long MIN_REJOIN_DELAY_MILLIS = 500;
  private static final long MAX_REJOIN_DELAY_MILLIS = 5000;
  private static final long BLACKLIST_TTL_MILLIS = 60_000;
  private static final SecureRandom IDS = new SecureRandom();

  private final Settings settings;
  private final Transport transport;
  private final SlotKeys keys;
  private final LongSupplier clock;
  private final ConfigWriter writer;
  private final Map<String, ClusterNode> nodes = new LinkedHashMap<>();
  private final Map<String, Long> blacklist = new HashMap<>();
  private final ClusterNode[] slotOwners = new ClusterNode[HashSlots.SLOTS];
  private final ClusterNode[] migratingTo = new ClusterNode[HashSlots.SLOTS];
  private final ClusterNode[] importingFrom = new ClusterNode[HashSlots.SLOTS];
  // the slots this node migrates or imports (set and cleared with the two maps above), so that
  // nodes.conf and CLUSTER NODES find them without a walk over every slot
  private final BitSet migrations = new BitSet(HashSlots.SLOTS);
  // told of every change of the three maps above (slotChanged, allChanged)
  private final SlotTableUpdater tableUpdater =
      new SlotTableUpdater(slotOwners, migratingTo, importingFrom);
  private final long[] sent = new long[ClusterMessage.TYPE_COUNT];
  private final long[] received = new long[ClusterMessage.TYPE_COUNT];
  private ClusterNode myself;
  private long currentEpoch;
  private long lastVoteEpoch;
  private int state = STATE_FAIL;
  private int size;
  private long iteration;
  private long pingsSent;
  private long pfailNodes;
  private long firstUpdateMillis;
  private long amongMinorityMillis;
  private boolean saveNeeded;
  // the pending save must reach the disk (Redis's CLUSTER_TODO_FSYNC_CONFIG)
  private boolean fsyncNeeded;
  private boolean updateNeeded;
  private String saveError;
  private boolean requireFullCoverage;
  // cluster-announce-ip, -port, -bus-port ("" and 0: not announced)
  private String announcedIp = "";
  private int announcedPort;
  private int announcedBusPort;
  // what the dispatcher routes by: replaced (never changed) after every change of configuration
  private volatile SlotTable published = SlotTable.EMPTY;
  private final Failover failover;
  private NodeReplication replication = NodeReplication.NONE;
  private java.util.function.Consumer<String> fatalHandler = reason -> {};
  private boolean stopped;

  /**
   * Creates the state of a node that starts without a configuration: itself only, a master with a
   * random id.
   */
  public ClusterState(
      Settings settings, Transport transport, SlotKeys keys, LongSupplier clock, Saver saver) {
    this.settings = settings;
    this.transport = transport;
    this.keys = keys;
    this.clock = clock;
    this.writer = new ConfigWriter(saver);
    myself =
        new ClusterNode(randomName(), ClusterNode.MYSELF | ClusterNode.MASTER, clock.getAsLong());
    myself.port = settings.port();
    myself.cport = settings.busPort();
    nodes.put(myself.name, myself);
    saveNeeded = true;
    fsyncNeeded = true;
    requireFullCoverage = settings.requireFullCoverage();
    publish();
    failover = new Failover(this, settings.nodeTimeoutMillis());
  }

  /**
   * Sets what this node follows its master with and pauses writers with (the server's replication);
   * until then replicas follow nothing and offsets are 0.
   */
  public synchronized void replication(NodeReplication replication) {
    this.replication = replication;
  }

  /**
   * Sets what runs, once, when nodes.conf cannot be written after a change (Redis's
   * clusterSaveConfigOrDie exits): from then on this state takes no message and runs no cron, so
   * that it never acts on a configuration it could not make durable. The handler runs on the thread
   * that failed, with this state's lock held: it must hand the server's stop to another thread.
   */
  public synchronized void onFatal(java.util.function.Consumer<String> handler) {
    this.fatalHandler = handler;
  }

  /** Returns whether this node stopped because nodes.conf could not be written. */
  public synchronized boolean stopped() {
    return stopped;
  }

  /** Returns a random 40-hex-digit node id. */
  static String randomName() {
    byte[] bytes = new byte[20];
    IDS.nextBytes(bytes);
    StringBuilder hex = new StringBuilder(40);
    for (byte b : bytes) {
      hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return hex.toString();
  }

  /** Returns whether {@code name} is a well-formed node id: 40 characters. */
  static boolean validName(String name) {
    return name != null && name.length() == MessageCodec.NAME_LENGTH;
  }

  // ---------------------------------------------------------------- loading nodes.conf

  /**
   * Replaces the configuration with what {@code nodes.conf} held (at start).
   *
   * @throws CorruptNodesFile if it names no node as myself
   */
  public synchronized void load(NodesFile.Content content) throws CorruptNodesFile {
    nodes.clear();
    Arrays.fill(slotOwners, null);
    tableUpdater.allChanged();
    myself = null;
    for (NodesFile.NodeLine line : content.nodes()) {
      ClusterNode n = nodeOrPlaceholder(line.name());
      n.ip = line.ip();
      n.port = line.port();
      n.cport = line.cport();
      n.hostname = line.hostname();
      n.flags = line.flags();
      if (n.has(ClusterNode.MYSELF)) {
        if (myself != null) {
          throw new CorruptNodesFile(content.file(), line.lineNumber(), "a second 'myself' node");
        }
        myself = n;
      }
      if (n.has(ClusterNode.FAIL)) {
        n.failTimeMillis = clock.getAsLong();
      }
      if (line.master() != null) {
        ClusterNode master = nodeOrPlaceholder(line.master());
        n.slaveOf = master;
        addReplica(master, n);
      }
      if (line.pingSent()) {
        n.pingSentMillis = clock.getAsLong();
      }
      if (line.pongReceived()) {
        n.pongReceivedMillis = clock.getAsLong();
      }
      n.configEpoch = n.isSlave() && n.slaveOf != null ? 0 : line.configEpoch();
      for (int[] range : line.slots()) {
        for (int slot = range[0]; slot <= range[1]; slot++) {
          addSlot(n, slot);
        }
      }
      for (Map.Entry<Integer, String> e : line.migrating().entrySet()) {
        setMigrating(e.getKey(), nodeOrPlaceholder(e.getValue()));
      }
      for (Map.Entry<Integer, String> e : line.importing().entrySet()) {
        setImporting(e.getKey(), nodeOrPlaceholder(e.getValue()));
      }
    }
    if (myself == null) {
      throw new CorruptNodesFile(content.file(), 0, "no line has the 'myself' flag");
    }
    applyAnnounced();
    currentEpoch = Math.max(content.currentEpoch(), maxEpoch());
    lastVoteEpoch = content.lastVoteEpoch();
    saveNeeded = false;
    fsyncNeeded = false;
    publish();
    LOGGER.log(Level.INFO, "Node configuration loaded, I''m {0}", myself.name);
  }

  private ClusterNode nodeOrPlaceholder(String name) {
    ClusterNode n = nodes.get(name);
    if (n == null) {
      n = new ClusterNode(name, 0, clock.getAsLong());
      nodes.put(name, n);
    }
    return n;
  }

  // ---------------------------------------------------------------- accessors

  /** Returns this node. */
  public synchronized ClusterNode myself() {
    return myself;
  }

  /** Returns this node's id. */
  public synchronized String myId() {
    return myself.name;
  }

  /** Returns the node with this id, or null. */
  public synchronized ClusterNode node(String name) {
    return nodes.get(name);
  }

  /** Returns a copy of the known nodes, this node included. */
  public synchronized List<ClusterNode> nodes() {
    return new ArrayList<>(nodes.values());
  }

  /** Returns the cluster state: {@link #STATE_OK} or {@link #STATE_FAIL}. */
  public synchronized int state() {
    return state;
  }

  /** Returns currentEpoch. */
  public synchronized long currentEpoch() {
    return currentEpoch;
  }

  /** Returns the owner of a slot, or null. */
  public synchronized ClusterNode slotOwner(int slot) {
    return slotOwners[slot];
  }

  /** Returns what the state reads of the keyspace. */
  public SlotKeys keys() {
    return keys;
  }

  /** Returns the last error writing nodes.conf, or null if the last write succeeded. */
  public synchronized String saveError() {
    return saveError;
  }

  // ---------------------------------------------------------------- node table

  private ClusterNode createNode(String name, int flags) {
    return new ClusterNode(name == null ? randomName() : name, flags, clock.getAsLong());
  }

  private void addNode(ClusterNode node) {
    nodes.put(node.name, node);
  }

  private void deleteNode(ClusterNode node) {
    for (int slot = migrations.nextSetBit(0); slot >= 0; slot = migrations.nextSetBit(slot + 1)) {
      if (importingFrom[slot] == node) {
        setImporting(slot, null);
      }
      if (migratingTo[slot] == node) {
        setMigrating(slot, null);
      }
      if (slotOwners[slot] == node) {
        deleteSlot(slot);
      }
    }
    for (ClusterNode other : nodes.values()) {
      if (other != node) {
        other.failReports.remove(node);
      }
    }
    nodes.remove(node.name);
    failover.forget(node);
    if (node.slaveOf != null) {
      node.slaveOf.replicas.remove(node);
    }
    for (ClusterNode replica : node.replicas) {
      replica.slaveOf = null;
    }
    closeLinks(node);
  }

  private static void closeLinks(ClusterNode node) {
    Link link = node.link;
    Link inbound = node.inboundLink;
    node.link = null;
    node.inboundLink = null;
    if (link != null) {
      link.node(null);
      link.close();
    }
    if (inbound != null) {
      inbound.node(null);
      inbound.close();
    }
  }

  /** Closes a node's outbound link (the cron reconnects it). */
  private static void dropLink(ClusterNode node) {
    Link old = node.link;
    if (old != null) {
      node.link = null;
      old.node(null);
      old.close();
    }
  }

  private void renameNode(ClusterNode node, String newName) {
    LOGGER.log(Level.DEBUG, "Renaming node {0} into {1}", node.name, newName);
    nodes.remove(node.name);
    node.name = newName;
    nodes.put(newName, node);
  }

  private boolean addSlot(ClusterNode node, int slot) {
    if (slotOwners[slot] != null) {
      return false;
    }
    node.setSlot(slot);
    slotOwners[slot] = node;
    tableUpdater.slotChanged(slot);
    return true;
  }

  private boolean deleteSlot(int slot) {
    ClusterNode owner = slotOwners[slot];
    if (owner == null) {
      return false;
    }
    owner.clearSlot(slot);
    slotOwners[slot] = null;
    tableUpdater.slotChanged(slot);
    return true;
  }

  /** Sets the node this node migrates {@code slot} to (null: none). */
  private void setMigrating(int slot, ClusterNode target) {
    migratingTo[slot] = target;
    migrations.set(slot, target != null || importingFrom[slot] != null);
    tableUpdater.slotChanged(slot);
  }

  /** Sets the node this node imports {@code slot} from (null: none). */
  private void setImporting(int slot, ClusterNode source) {
    importingFrom[slot] = source;
    migrations.set(slot, source != null || migratingTo[slot] != null);
    tableUpdater.slotChanged(slot);
  }

  /** Stops migrating and importing every slot. */
  private void clearMigrations() {
    Arrays.fill(migratingTo, null);
    Arrays.fill(importingFrom, null);
    migrations.clear();
    tableUpdater.allChanged();
  }

  private int deleteNodeSlots(ClusterNode node) {
    int deleted = 0;
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      if (node.ownsSlot(slot)) {
        deleteSlot(slot);
        deleted++;
      }
    }
    return deleted;
  }

  private long maxEpoch() {
    long max = currentEpoch;
    for (ClusterNode n : nodes.values()) {
      max = Math.max(max, n.configEpoch);
    }
    return max;
  }

  /** Notes that nodes.conf must be written durably ({@code save}) and the state updated. */
  void todo(boolean save, boolean update) {
    todo(save, update, save);
  }

  /**
   * Notes that nodes.conf must be written ({@code save}), forced to disk ({@code fsync}), and the
   * state updated ({@code update}), before the current call returns. Pending needs add up: one
   * write serves them all, forced if any asked for it.
   */
  void todo(boolean save, boolean update, boolean fsync) {
    saveNeeded |= save;
    fsyncNeeded |= fsync;
    updateNeeded |= update;
  }

  /**
   * Ends a command that changed the configuration: {@link #afterEvent}, then null, or Redis's
   * refusal if nodes.conf could not be written (the node stops; the change must not be
   * acknowledged).
   */
  private String afterCommand() {
    afterEvent();
    return stopped ? "ERR " + STOPPED : null;
  }

  /** Why a node that could not write nodes.conf refuses what it is asked. */
  private static final String STOPPED = "can't update cluster config file: the node is stopping";

  /** What Redis does before sleeping: updates the state and writes nodes.conf if either changed. */
  private void afterEvent() {
    boolean changed = updateNeeded || saveNeeded;
    if (updateNeeded) {
      updateNeeded = false;
      updateState();
    }
    // a save that worked has published the table already
    boolean published = saveNeeded && saveOrDie();
    if (changed && !published) {
      publish();
    }
  }

  /** Publishes the slot table the dispatcher routes by (after any change of configuration). */
  private void publish() {
    published = tableUpdater.next(state == STATE_OK, myself);
    assert published.routesEqual(slotTableFromScratch())
        : "the slot table made from the changes differs from the one built from scratch";
  }

  /** Returns the slot table of the state as it is now, built from scratch (for tests). */
  synchronized SlotTable slotTableFromScratch() {
    return SlotTable.of(slotOwners, migratingTo, importingFrom, state == STATE_OK, myself);
  }

  /**
   * Returns the latest slot table: what routing a request needs, read without this object's
   * monitor.
   */
  public SlotTable slotTable() {
    return published;
  }

  /**
   * Sets what this node announces to the other nodes and to clients (cluster-announce-ip, -port,
   * -bus-port, -hostname), as Redis does: its address in MOVED/ASK, CLUSTER SLOTS/SHARDS/NODES and
   * the bus messages' header and hostname extension.
   *
   * @param ip the address announced, or "" to use the one the other nodes see
   * @param port the client port announced, or 0 for the port listened on
   * @param busPort the bus port announced, or 0 for the bus port listened on
   * @param hostname the hostname announced, or ""
   */
  public synchronized void announce(String ip, int port, int busPort, String hostname) {
    announcedIp = ip;
    announcedPort = port;
    announcedBusPort = busPort;
    myself.hostname = hostname;
    applyAnnounced();
    if (!ip.isEmpty()) {
      myself.ip = ip;
    }
    todo(true, true);
    afterEvent();
  }

  private void applyAnnounced() {
    myself.port = announcedPort != 0 ? announcedPort : settings.port();
    myself.cport = announcedBusPort != 0 ? announcedBusPort : settings.busPort();
  }

  /** Sets cluster-require-full-coverage: whether an unserved slot puts the cluster down. */
  public synchronized void requireFullCoverage(boolean required) {
    requireFullCoverage = required;
    todo(false, true);
    afterEvent();
  }

  /**
   * Writes nodes.conf now; if it cannot be written, stops this node (Redis's
   * clusterSaveConfigOrDie): it must not go on with an epoch or a vote it could not make durable.
   */
  boolean saveOrDie() {
    if (stopped) {
      return false;
    }
    if (saveNow()) {
      // what was saved is a change of configuration (a failover's slots, a new master): the
      // dispatcher routes by it from now on
      publish();
      return true;
    }
    die();
    return false;
  }

  /** Stops this node: nodes.conf could not be written. */
  private void die() {
    stopped = true;
    String reason = "Fatal: can't update cluster config file: " + saveError;
    LOGGER.log(Level.ERROR, reason);
    closeAll();
    fatalHandler.accept(reason);
  }

  private boolean saveNow() {
    boolean fsync = fsyncNeeded;
    saveNeeded = false;
    fsyncNeeded = false;
    try {
      // the newest content, made under the monitor: it always takes its place
      writer.write(writer.nextSequence(), configText(), fsync);
      saveError = null;
      return true;
    } catch (IOException e) {
      saveFailed(e, fsync);
      return false;
    }
  }

  private void saveFailed(IOException e, boolean fsync) {
    saveNeeded = true;
    fsyncNeeded |= fsync;
    saveError = e.getMessage() == null ? e.toString() : e.getMessage();
    LOGGER.log(Level.ERROR, "can't update cluster config file: " + saveError, e);
  }

  /**
   * What Redis does before sleeping, for the bus's thread (a message, the cron): updates the state
   * and publishes the slot table now, and returns the write of nodes.conf to do once the monitor is
   * released (null if none), so that a command that changes the configuration meanwhile neither
   * waits for this write nor for its fsync: its own write, made under the monitor, holds this
   * change too.
   */
  private PendingSave afterBusEvent() {
    boolean changed = updateNeeded || saveNeeded;
    if (updateNeeded) {
      updateNeeded = false;
      updateState();
    }
    PendingSave save = null;
    if (saveNeeded && !stopped) {
      save = new PendingSave(writer.nextSequence(), configText(), fsyncNeeded);
      saveNeeded = false;
      fsyncNeeded = false;
    }
    if (changed) {
      publish();
    }
    return save;
  }

  /**
   * Does a write that {@link #afterBusEvent} made ready, without the monitor. If a newer content
   * took its place first and this one had to be forced, the newest is written forced in its turn;
   * if the file cannot be written, the node stops, as {@link #saveOrDie}.
   */
  private void saveOutside(PendingSave save) {
    PendingSave next = save;
    while (next != null) {
      try {
        if (writer.write(next.sequence(), next.content(), next.fsync()) || !next.fsync()) {
          return;
        }
        synchronized (this) {
          if (stopped) {
            return;
          }
          todo(true, false, true);
          next = afterBusEvent();
        }
      } catch (IOException e) {
        synchronized (this) {
          if (!stopped) {
            saveFailed(e, next.fsync());
            die();
          }
        }
        return;
      }
    }
  }

  /**
   * Returns the content of nodes.conf: the CLUSTER NODES lines without handshake nodes, and vars.
   */
  synchronized String configText() {
    return nodesDescription(ClusterNode.HANDSHAKE)
        + "vars currentEpoch "
        + currentEpoch
        + " lastVoteEpoch "
        + lastVoteEpoch
        + "\n";
  }

  // ---------------------------------------------------------------- handshake

  /**
   * Starts a handshake with a node at this address (CLUSTER MEET); returns false if the address or
   * a port is not valid. A handshake already in progress with the address is not started twice.
   */
  public synchronized boolean startHandshake(String ip, long port, long cport) {
    byte[] address = NetUtil.createByteArrayFromIpAddressString(ip);
    if (address == null || port <= 0 || port > 65535 || cport <= 0 || cport > 65535) {
      return false;
    }
    String normalized = NetUtil.bytesToIpAddress(address);
    for (ClusterNode n : nodes.values()) {
      if (n.has(ClusterNode.HANDSHAKE)
          && n.ip.equalsIgnoreCase(normalized)
          && n.port == port
          && n.cport == cport) {
        return true;
      }
    }
    ClusterNode n = createNode(null, ClusterNode.HANDSHAKE | ClusterNode.MEET);
    n.ip = normalized;
    n.port = (int) port;
    n.cport = (int) cport;
    addNode(n);
    return true;
  }

  // ---------------------------------------------------------------- links

  /** The bus connected an outbound link: the first PING (MEET for a node to meet) goes out. */
  public synchronized void linkConnected(Link link) {
    ClusterNode node = link.node();
    if (node == null || node.link != link) {
      link.close();
      return;
    }
    long oldPingSent = node.pingSentMillis;
    sendPing(link, node.has(ClusterNode.MEET) ? ClusterMessage.MEET : ClusterMessage.PING);
    if (oldPingSent != 0) {
      node.pingSentMillis = oldPingSent;
    }
    node.flags &= ~ClusterNode.MEET;
    afterEvent();
  }

  /** The bus lost a link (or could not connect it): the node is disconnected until the cron. */
  public synchronized void linkClosed(Link link) {
    ClusterNode node = link.node();
    if (node == null) {
      return;
    }
    if (node.link == link) {
      node.link = null;
      // a node never reached must still time out: count the failed attempt as a ping
      if (node.pingSentMillis == 0) {
        node.pingSentMillis = clock.getAsLong();
      }
    }
    if (node.inboundLink == link) {
      node.inboundLink = null;
    }
  }

  // ---------------------------------------------------------------- messages out

  ClusterMessage header(int type) {
    ClusterMessage m = new ClusterMessage(type);
    ClusterNode master = myself.isSlave() && myself.slaveOf != null ? myself.slaveOf : myself;
    m.sender = myself.name;
    m.myIp = announcedIp;
    m.port = myself.port;
    m.cport = myself.cport;
    m.pport = 0;
    m.flags = myself.flags & 0xFFFF;
    m.state = state;
    m.currentEpoch = currentEpoch;
    m.configEpoch = master.configEpoch;
    m.offset = replication.offset();
    if (failover.masterPaused()) {
      m.mflags[0] |= ClusterMessage.MFLAG0_PAUSED;
    }
    System.arraycopy(master.slots, 0, m.mySlots, 0, m.mySlots.length);
    m.slaveOf = myself.slaveOf == null ? null : myself.slaveOf.name;
    return m;
  }

  void send(Link link, ClusterMessage m) {
    if (link == null) {
      return;
    }
    sent[m.type]++;
    link.send(m);
  }

  void broadcast(ClusterMessage m) {
    for (ClusterNode n : nodes.values()) {
      if (!n.has(ClusterNode.MYSELF | ClusterNode.HANDSHAKE)) {
        send(n.link, m);
      }
    }
  }

  private static Gossip gossipOf(ClusterNode n) {
    return new Gossip(
        n.name,
        n.pingSentMillis / 1000,
        n.pongReceivedMillis / 1000,
        n.ip,
        n.port,
        n.cport,
        n.flags & 0xFFFF,
        n.pport);
  }

  void sendPing(Link link, int type) {
    pingsSent++;
    int freshNodes = nodes.size() - 2;
    int wanted = Math.max(3, nodes.size() / 10);
    wanted = Math.min(wanted, freshNodes);
    if (!link.inbound() && type == ClusterMessage.PING && link.node() != null) {
      link.node().pingSentMillis = clock.getAsLong();
    }
    ClusterMessage m = header(type);
    List<ClusterNode> all = new ArrayList<>(nodes.values());
    int maxIterations = wanted * 3;
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (freshNodes > 0 && m.gossip.size() < wanted && maxIterations-- > 0) {
      ClusterNode n = all.get(random.nextInt(all.size()));
      if (n == myself || n.has(ClusterNode.PFAIL)) {
        continue;
      }
      if (n.has(ClusterNode.HANDSHAKE | ClusterNode.NOADDR)
          || (n.link == null && n.numSlots == 0)) {
        freshNodes--;
        continue;
      }
      if (n.lastInPingGossip == pingsSent) {
        continue;
      }
      m.gossip.add(gossipOf(n));
      n.lastInPingGossip = pingsSent;
      freshNodes--;
    }
    long pfailWanted = pfailNodes;
    for (ClusterNode n : all) {
      if (pfailWanted <= 0) {
        break;
      }
      if (n.has(ClusterNode.HANDSHAKE | ClusterNode.NOADDR) || !n.has(ClusterNode.PFAIL)) {
        continue;
      }
      m.gossip.add(gossipOf(n));
      pfailWanted--;
    }
    if (!myself.hostname.isEmpty()) {
      m.extensions.add(PingExtension.text(PingExtension.HOSTNAME, myself.hostname));
    }
    send(link, m);
  }

  /**
   * Sends a PONG to every connected node, or with {@code localReplicasOnly} to the other replicas
   * of this node's master (or of this master).
   */
  void broadcastPong(boolean localReplicasOnly) {
    ClusterNode master = myself.isSlave() ? myself.slaveOf : myself;
    for (ClusterNode n : nodes.values()) {
      if (n.link == null || n == myself || n.has(ClusterNode.HANDSHAKE)) {
        continue;
      }
      if (localReplicasOnly && !(n.isSlave() && n.slaveOf != null && n.slaveOf == master)) {
        continue;
      }
      sendPing(n.link, ClusterMessage.PONG);
    }
  }

  private void sendFail(String nodeName) {
    ClusterMessage m = header(ClusterMessage.FAIL);
    m.failing = nodeName;
    broadcast(m);
  }

  private void sendUpdate(Link link, ClusterNode node) {
    if (link == null) {
      return;
    }
    ClusterMessage m = header(ClusterMessage.UPDATE);
    m.updateNode = node.name;
    m.updateConfigEpoch = node.configEpoch;
    m.updateSlots = node.slots.clone();
    send(link, m);
  }

  // ---------------------------------------------------------------- messages in

  /**
   * Processes one message that arrived on {@code link} (Redis's clusterProcessPacket), then writes
   * nodes.conf if the message changed the configuration (after releasing the monitor).
   */
  public void process(Link link, ClusterMessage m) {
    PendingSave save;
    synchronized (this) {
      if (stopped) {
        return;
      }
      try {
        processMessage(link, m);
      } finally {
        save = afterBusEvent();
      }
    }
    saveOutside(save);
  }

  private ClusterNode senderOf(Link link, ClusterMessage m) {
    ClusterNode linked = link.node();
    if (linked != null && !linked.has(ClusterNode.HANDSHAKE)) {
      return linked;
    }
    ClusterNode sender = m.sender == null ? null : nodes.get(m.sender);
    if (sender != null && linked == null) {
      // an inbound link whose node we now know
      if (sender.inboundLink != null && sender.inboundLink != link) {
        Link old = sender.inboundLink;
        old.node(null);
        old.close();
      }
      sender.inboundLink = link;
      link.node(sender);
    }
    return sender;
  }

  private void processMessage(Link link, ClusterMessage m) {
    long now = clock.getAsLong();
    int type = m.type;
    if (type < ClusterMessage.TYPE_COUNT) {
      received[type]++;
    }
    ClusterNode sender = senderOf(link, m);
    if (sender != null) {
      sender.dataReceivedMillis = now;
    }
    long senderConfigEpoch = 0;
    long senderCurrentEpoch = 0;
    if (sender != null && !sender.has(ClusterNode.HANDSHAKE)) {
      senderCurrentEpoch = m.currentEpoch;
      senderConfigEpoch = m.configEpoch;
      if (Long.compareUnsigned(senderCurrentEpoch, currentEpoch) > 0) {
        currentEpoch = senderCurrentEpoch;
      }
      if (Long.compareUnsigned(senderConfigEpoch, sender.configEpoch) > 0) {
        sender.configEpoch = senderConfigEpoch;
        todo(true, false);
      }
      sender.replOffset = m.offset;
      failover.masterOffsetHeard(sender, m);
    }
    boolean ping = type == ClusterMessage.PING || type == ClusterMessage.MEET;
    if (ping) {
      if (announcedIp.isEmpty() && (type == ClusterMessage.MEET || myself.ip.isEmpty())) {
        String local = link.localIp();
        if (!local.isEmpty() && !local.equals(myself.ip)) {
          myself.ip = local;
          LOGGER.log(Level.INFO, "IP address for this node updated to {0}", myself.ip);
          todo(true, false);
        }
      }
      if (sender == null && type == ClusterMessage.MEET) {
        ClusterNode n = createNode(null, ClusterNode.HANDSHAKE);
        n.ip = m.myIp.isEmpty() ? link.remoteIp() : m.myIp;
        n.port = m.port;
        n.pport = m.pport;
        n.cport = m.cport;
        addNode(n);
        todo(true, false);
        processGossip(m, link, null);
      }
      sendPing(link, ClusterMessage.PONG);
    }
    switch (type) {
      case ClusterMessage.PING, ClusterMessage.PONG, ClusterMessage.MEET ->
          processPingOrPong(link, m, sender, senderConfigEpoch, now);
      case ClusterMessage.FAIL -> processFail(m, sender, now);
      case ClusterMessage.UPDATE -> processUpdate(m, sender);
      case ClusterMessage.FAILOVER_AUTH_REQUEST -> {
        if (sender != null) {
          failover.authRequested(sender, m);
        }
      }
      case ClusterMessage.FAILOVER_AUTH_ACK -> {
        if (sender != null) {
          failover.authAckReceived(sender, senderCurrentEpoch);
        }
      }
      case ClusterMessage.MFSTART -> failover.mfStartReceived(sender, link);
      case ClusterMessage.PUBLISH, ClusterMessage.PUBLISHSHARD, ClusterMessage.MODULE ->
          LOGGER.log(
              Level.DEBUG,
              "{0} message from {1} counted, not acted on",
              ClusterMessage.typeName(type),
              m.sender);
      default -> LOGGER.log(Level.WARNING, "Received unknown packet type: {0}", type);
    }
  }

  private void processPingOrPong(
      Link link, ClusterMessage m, ClusterNode sender, long senderConfigEpoch, long now) {
    int type = m.type;
    if (!link.inbound()) {
      ClusterNode linked = link.node();
      if (linked.has(ClusterNode.HANDSHAKE)) {
        if (sender != null) {
          LOGGER.log(
              Level.DEBUG,
              "Handshake: we already know node {0}, updating the address if needed.",
              sender.name);
          if (updateAddressIfNeeded(sender, link, m)) {
            todo(true, true);
          }
          deleteNode(linked);
          return;
        }
        renameNode(linked, m.sender);
        LOGGER.log(Level.DEBUG, "Handshake with node {0} completed.", linked.name);
        linked.flags &= ~ClusterNode.HANDSHAKE;
        linked.flags |= m.flags & (ClusterNode.MASTER | ClusterNode.SLAVE);
        todo(true, false);
      } else if (!linked.name.equals(m.sender)) {
        LOGGER.log(
            Level.DEBUG,
            "PONG contains mismatching sender ID. About node {0} added {1} ms ago",
            linked.name,
            now - linked.createdMillis);
        linked.flags |= ClusterNode.NOADDR;
        linked.ip = "";
        linked.port = 0;
        linked.pport = 0;
        linked.cport = 0;
        linked.link = null;
        link.node(null);
        link.close();
        todo(true, false);
        return;
      }
    }
    if (sender != null) {
      sender.flags = (sender.flags & ~ClusterNode.NOFAILOVER) | (m.flags & ClusterNode.NOFAILOVER);
    }
    if (sender != null
        && type == ClusterMessage.PING
        && !sender.has(ClusterNode.HANDSHAKE)
        && updateAddressIfNeeded(sender, link, m)) {
      todo(true, true);
    }
    if (!link.inbound() && type == ClusterMessage.PONG) {
      ClusterNode linked = link.node();
      linked.pongReceivedMillis = now;
      linked.pingSentMillis = 0;
      if (linked.has(ClusterNode.PFAIL)) {
        linked.flags &= ~ClusterNode.PFAIL;
        todo(true, true);
      } else if (linked.has(ClusterNode.FAIL)) {
        clearFailureIfNeeded(linked, now);
      }
    }
    if (sender == null) {
      return;
    }
    processRole(m, sender);
    ClusterNode senderMaster = sender.isMaster() ? sender : sender.slaveOf;
    boolean dirtySlots = senderMaster != null && !Arrays.equals(senderMaster.slots, m.mySlots);
    if (sender.isMaster() && dirtySlots) {
      updateSlotsConfigWith(sender, senderConfigEpoch, m.mySlots);
    }
    if (dirtySlots) {
      for (int slot = ClusterMessage.nextSlot(m.mySlots, 0);
          slot >= 0;
          slot = ClusterMessage.nextSlot(m.mySlots, slot + 1)) {
        ClusterNode owner = slotOwners[slot];
        if (owner == sender || owner == null) {
          continue;
        }
        if (Long.compareUnsigned(owner.configEpoch, senderConfigEpoch) > 0) {
          LOGGER.log(
              Level.DEBUG,
              "Node {0} has old slots configuration, sending an UPDATE message about {1}",
              sender.name,
              owner.name);
          sendUpdate(sender.link, owner);
          break;
        }
      }
    }
    if (myself.isMaster() && sender.isMaster() && senderConfigEpoch == myself.configEpoch) {
      handleConfigEpochCollision(sender);
    }
    processGossip(m, link, sender);
    processExtensions(m, sender);
  }

  private void processRole(ClusterMessage m, ClusterNode sender) {
    if (m.slaveOf == null) {
      setNodeAsMaster(sender);
      return;
    }
    ClusterNode master = nodes.get(m.slaveOf);
    if (sender.isMaster()) {
      deleteNodeSlots(sender);
      sender.flags &= ~(ClusterNode.MASTER | ClusterNode.MIGRATE_TO);
      sender.flags |= ClusterNode.SLAVE;
      todo(true, true);
    }
    if (master != null && sender.slaveOf != master) {
      if (sender.slaveOf != null) {
        sender.slaveOf.replicas.remove(sender);
      }
      addReplica(master, sender);
      sender.slaveOf = master;
      todo(true, false);
    }
  }

  void setNodeAsMaster(ClusterNode n) {
    if (n.isMaster()) {
      return;
    }
    if (n.slaveOf != null) {
      n.slaveOf.replicas.remove(n);
      if (n != myself) {
        n.flags |= ClusterNode.MIGRATE_TO;
      }
    }
    n.flags &= ~ClusterNode.SLAVE;
    n.flags |= ClusterNode.MASTER;
    n.slaveOf = null;
    todo(true, true);
  }

  private boolean updateAddressIfNeeded(ClusterNode node, Link link, ClusterMessage m) {
    if (link == node.link) {
      return false;
    }
    String ip = m.myIp.isEmpty() ? link.remoteIp() : m.myIp;
    if (ip.isEmpty()) {
      return false;
    }
    if (node.port == m.port
        && node.cport == m.cport
        && node.pport == m.pport
        && ip.equals(node.ip)) {
      return false;
    }
    node.ip = ip;
    node.port = m.port;
    node.pport = m.pport;
    node.cport = m.cport;
    dropLink(node);
    node.flags &= ~ClusterNode.NOADDR;
    LOGGER.log(Level.INFO, "Address updated for node {0}, now {1}:{2}", node.name, ip, node.port);
    return true;
  }

  private void processGossip(ClusterMessage m, Link link, ClusterNode knownSender) {
    ClusterNode sender = link.node() != null ? link.node() : knownSender;
    long nowMillis = clock.getAsLong();
    for (Gossip g : m.gossip) {
      if (g.nodeName() == null) {
        continue;
      }
      ClusterNode node = nodes.get(g.nodeName());
      int flags = g.flags();
      boolean failing = (flags & (ClusterNode.FAIL | ClusterNode.PFAIL)) != 0;
      if (node != null) {
        if (sender != null && sender.isMaster() && node != myself) {
          if (failing) {
            if (node.failReports.put(sender, nowMillis) == null) {
              LOGGER.log(
                  Level.DEBUG,
                  "Node {0} reported node {1} as not reachable.",
                  sender.name,
                  node.name);
            }
            markFailingIfNeeded(node);
          } else if (node.failReports.remove(sender) != null) {
            LOGGER.log(
                Level.DEBUG, "Node {0} reported node {1} is back online.", sender.name, node.name);
          }
        }
        if (!failing && node.pingSentMillis == 0 && failureReportCount(node) == 0) {
          long pongTime = g.pongReceivedSeconds() * 1000;
          if (pongTime <= nowMillis + 500 && pongTime > node.pongReceivedMillis) {
            node.pongReceivedMillis = pongTime;
          }
        }
        if (node.has(ClusterNode.FAIL | ClusterNode.PFAIL)
            && (flags & ClusterNode.NOADDR) == 0
            && !failing
            && (!node.ip.equalsIgnoreCase(g.ip())
                || node.port != g.port()
                || node.cport != g.cport())) {
          dropLink(node);
          node.ip = g.ip();
          node.port = g.port();
          node.pport = g.pport();
          node.cport = g.cport();
          node.flags &= ~ClusterNode.NOADDR;
        }
      } else if (sender != null
          && (flags & ClusterNode.NOADDR) == 0
          && !blacklisted(g.nodeName())
          && validName(g.nodeName())) {
        ClusterNode n = createNode(g.nodeName(), flags & ~ClusterNode.MYSELF);
        n.ip = g.ip();
        n.port = g.port();
        n.pport = g.pport();
        n.cport = g.cport();
        addNode(n);
        todo(true, false);
      }
    }
  }

  private void processExtensions(ClusterMessage m, ClusterNode sender) {
    String hostname = "";
    for (PingExtension e : m.extensions) {
      switch (e.type()) {
        case PingExtension.HOSTNAME -> hostname = e.asText();
        case PingExtension.HUMAN_NODENAME, PingExtension.FORGOTTEN_NODE, PingExtension.SHARD_ID ->
            LOGGER.log(Level.TRACE, "ping extension {0} from {1} ignored", e.type(), sender.name);
        default -> LOGGER.log(Level.WARNING, "Received unknown extension type {0}", e.type());
      }
    }
    if (!hostname.equals(sender.hostname)) {
      sender.hostname = hostname;
      todo(true, false);
    }
  }

  private void processFail(ClusterMessage m, ClusterNode sender, long now) {
    if (sender == null) {
      LOGGER.log(
          Level.INFO, "Ignoring FAIL message from unknown node {0} about {1}", m.sender, m.failing);
      return;
    }
    ClusterNode failing = m.failing == null ? null : nodes.get(m.failing);
    if (failing != null && !failing.has(ClusterNode.FAIL | ClusterNode.MYSELF)) {
      LOGGER.log(Level.INFO, "FAIL message received from {0} about {1}", m.sender, m.failing);
      failing.flags |= ClusterNode.FAIL;
      failing.failTimeMillis = now;
      failing.flags &= ~ClusterNode.PFAIL;
      todo(true, true);
    }
  }

  private void processUpdate(ClusterMessage m, ClusterNode sender) {
    if (sender == null || m.updateNode == null) {
      return;
    }
    ClusterNode n = nodes.get(m.updateNode);
    if (n == null || Long.compareUnsigned(n.configEpoch, m.updateConfigEpoch) >= 0) {
      return;
    }
    if (n.isSlave()) {
      setNodeAsMaster(n);
    }
    n.configEpoch = m.updateConfigEpoch;
    todo(true, false);
    updateSlotsConfigWith(n, m.updateConfigEpoch, m.updateSlots);
  }

  /**
   * Rebinds the slots a master claims with a newer configEpoch than their owners' (Redis's
   * clusterUpdateSlotsConfigWith). Slots being imported are left to the operator.
   */
  private void updateSlotsConfigWith(ClusterNode sender, long senderConfigEpoch, byte[] claimed) {
    if (sender == myself) {
      LOGGER.log(Level.WARNING, "Discarding UPDATE message about myself.");
      return;
    }
    ClusterNode current = myself.isMaster() ? myself : myself.slaveOf;
    // slots this node loses while it still holds keys in them (Redis's dirty slots)
    int[] lostWithKeys = null;
    int lostCount = 0;
    boolean tookOurs = false;
    int senderSlots = 0;
    int migratedOurSlots = 0;
    for (int slot = ClusterMessage.nextSlot(claimed, 0);
        slot >= 0;
        slot = ClusterMessage.nextSlot(claimed, slot + 1)) {
      senderSlots++;
      ClusterNode owner = slotOwners[slot];
      if (owner == sender || importingFrom[slot] != null) {
        continue;
      }
      if (owner == null || Long.compareUnsigned(owner.configEpoch, senderConfigEpoch) < 0) {
        if (owner == myself && keys.countKeysInSlot(slot) > 0) {
          if (lostWithKeys == null) {
            lostWithKeys = new int[HashSlots.SLOTS];
          }
          lostWithKeys[lostCount++] = slot;
        }
        if (owner == current && current != null) {
          tookOurs = true;
          migratedOurSlots++;
        }
        deleteSlot(slot);
        addSlot(sender, slot);
        todo(true, true);
      }
    }
    if (tookOurs
        && current.numSlots == 0
        && (replication.settings().allowReplicaMigration() || senderSlots == migratedOurSlots)) {
      LOGGER.log(
          Level.INFO,
          "Configuration change detected. Reconfiguring myself as a replica of {0}",
          sender.name);
      setMaster(sender);
      todo(true, true);
    } else if (myself.slaveOf != null
        && myself.slaveOf.slaveOf != null
        && myself.slaveOf.slaveOf != myself) {
      LOGGER.log(
          Level.INFO,
          "I''m a sub-replica! Reconfiguring myself as a replica of grandmaster {0}",
          myself.slaveOf.slaveOf.name);
      setMaster(myself.slaveOf.slaveOf);
      todo(true, true);
    } else if (lostCount > 0) {
      // still a master: the keys of the slots it lost go, so its keys match its slots again;
      // routed to their new owner first, so no command meets a slot's keys half deleted
      publish();
      long deleted = 0;
      for (int i = 0; i < lostCount; i++) {
        deleted += keys.deleteKeysInSlot(lostWithKeys[i]);
      }
      LOGGER.log(
          Level.WARNING,
          "{0} slots this node lost to {1} still held keys: deleted {2} keys",
          lostCount,
          sender.name,
          deleted);
    }
  }

  private void handleConfigEpochCollision(ClusterNode sender) {
    if (sender.configEpoch != myself.configEpoch || !sender.isMaster() || !myself.isMaster()) {
      return;
    }
    if (sender.name.compareTo(myself.name) <= 0) {
      return;
    }
    currentEpoch++;
    myself.configEpoch = currentEpoch;
    saveOrDie();
    LOGGER.log(
        Level.DEBUG,
        "WARNING: configEpoch collision with node {0}. configEpoch set to {1}",
        sender.name,
        Long.toUnsignedString(myself.configEpoch));
  }

  // ---------------------------------------------------------------- failure detection

  private int failureReportCount(ClusterNode node) {
    long maxAge = settings.nodeTimeoutMillis() * FAIL_REPORT_VALIDITY_MULT;
    long now = clock.getAsLong();
    node.failReports.values().removeIf(time -> now - time > maxAge);
    return node.failReports.size();
  }

  private void markFailingIfNeeded(ClusterNode node) {
    int quorum = size / 2 + 1;
    if (!node.has(ClusterNode.PFAIL) || node.has(ClusterNode.FAIL)) {
      return;
    }
    int failures = failureReportCount(node) + (myself.isMaster() ? 1 : 0);
    if (failures < quorum) {
      return;
    }
    LOGGER.log(Level.INFO, "Marking node {0} as failing (quorum reached).", node.name);
    node.flags &= ~ClusterNode.PFAIL;
    node.flags |= ClusterNode.FAIL;
    node.failTimeMillis = clock.getAsLong();
    sendFail(node.name);
    todo(true, true);
  }

  private void clearFailureIfNeeded(ClusterNode node, long now) {
    if (node.isSlave() || node.numSlots == 0) {
      LOGGER.log(
          Level.INFO,
          "Clear FAIL state for node {0}: {1} is reachable again.",
          node.name,
          node.isSlave() ? "replica" : "master without slots");
      node.flags &= ~ClusterNode.FAIL;
      todo(true, true);
    }
    if (node.isMaster()
        && node.numSlots > 0
        && now - node.failTimeMillis > settings.nodeTimeoutMillis() * FAIL_UNDO_TIME_MULT) {
      LOGGER.log(
          Level.INFO,
          "Clear FAIL state for node {0}: is reachable again and nobody is serving its slots"
              + " after some time.",
          node.name);
      node.flags &= ~ClusterNode.FAIL;
      todo(true, true);
    }
  }

  private boolean blacklisted(String name) {
    long now = clock.getAsLong();
    blacklist.values().removeIf(until -> until < now);
    return blacklist.containsKey(name);
  }

  // ---------------------------------------------------------------- cron and state

  /**
   * Runs one round of Redis's clusterCron (every 100 ms): connects links, pings, expires
   * handshakes, flags nodes that do not answer.
   */
  public void cron() {
    PendingSave save;
    synchronized (this) {
      if (stopped) {
        return;
      }
      tick();
      save = afterBusEvent();
    }
    saveOutside(save);
  }

  private void tick() {
    iteration++;
    long now = clock.getAsLong();
    long timeout = settings.nodeTimeoutMillis();
    long handshakeTimeout = Math.max(timeout, 1000);
    pfailNodes = 0;
    for (ClusterNode node : new ArrayList<>(nodes.values())) {
      if (node.has(ClusterNode.MYSELF | ClusterNode.NOADDR)) {
        continue;
      }
      if (node.has(ClusterNode.PFAIL)) {
        pfailNodes++;
      }
      if (node.has(ClusterNode.HANDSHAKE) && now - node.createdMillis > handshakeTimeout) {
        deleteNode(node);
        continue;
      }
      if (node.link == null) {
        node.link = transport.connect(node);
      }
    }
    if (iteration % 10 == 0) {
      pingOldest();
    }
    boolean update = false;
    int orphanedMasters = 0;
    int maxReplicas = 0;
    int myMastersReplicas = 0;
    for (ClusterNode node : new ArrayList<>(nodes.values())) {
      now = clock.getAsLong();
      if (node.has(ClusterNode.MYSELF | ClusterNode.NOADDR | ClusterNode.HANDSHAKE)) {
        continue;
      }
      if (myself.isSlave() && node.isMaster() && !node.has(ClusterNode.FAIL)) {
        int working = workingReplicas(node);
        if (working == 0 && node.numSlots > 0 && node.has(ClusterNode.MIGRATE_TO)) {
          orphanedMasters++;
        }
        maxReplicas = Math.max(maxReplicas, working);
        if (myself.slaveOf == node) {
          myMastersReplicas = working;
        }
      }
      long pingDelay = now - node.pingSentMillis;
      long dataDelay = now - node.dataReceivedMillis;
      if (node.link != null
          && now - node.link.createdMillis() > timeout
          && node.pingSentMillis != 0
          && pingDelay > timeout / 2
          && dataDelay > timeout / 2) {
        dropLink(node);
      }
      if (node.link != null
          && node.pingSentMillis == 0
          && now - node.pongReceivedMillis > timeout / 2) {
        sendPing(node.link, ClusterMessage.PING);
        continue;
      }
      if (node.link != null && myself.isMaster() && failover.manualFailoverReplica() == node) {
        // the replica of a manual failover hears this master's paused offset every 100 ms
        sendPing(node.link, ClusterMessage.PING);
        continue;
      }
      if (node.pingSentMillis == 0) {
        continue;
      }
      long delay = Math.min(pingDelay, dataDelay);
      if (delay > timeout && !node.has(ClusterNode.PFAIL | ClusterNode.FAIL)) {
        node.flags |= ClusterNode.PFAIL;
        update = true;
        if (myself.isMaster() && size == 1) {
          markFailingIfNeeded(node);
        } else {
          LOGGER.log(Level.DEBUG, "*** NODE {0} possibly failing", node.name);
        }
      }
    }
    // a replica whose replication is not set yet (just loaded, or its master's address came
    // late) follows its master
    ClusterNode master = myself.slaveOf;
    if (myself.isSlave()
        && master != null
        && !master.has(ClusterNode.NOADDR)
        && !master.ip.isEmpty()
        && !replication.following()) {
      replication.follow(master.ip, master.port);
    }
    failover.cron(orphanedMasters, maxReplicas, myMastersReplicas);
    if (update || state == STATE_FAIL) {
      updateNeeded = true;
    }
  }

  /**
   * Returns how many of a master's replicas are not FAIL (Redis's clusterCountNonFailingSlaves).
   */
  static int workingReplicas(ClusterNode master) {
    int working = 0;
    for (ClusterNode replica : master.replicas) {
      if (!replica.has(ClusterNode.FAIL)) {
        working++;
      }
    }
    return working;
  }

  private void pingOldest() {
    List<ClusterNode> all = new ArrayList<>(nodes.values());
    ThreadLocalRandom random = ThreadLocalRandom.current();
    ClusterNode oldest = null;
    for (int i = 0; i < 5; i++) {
      ClusterNode n = all.get(random.nextInt(all.size()));
      if (n.link == null || n.pingSentMillis != 0) {
        continue;
      }
      if (n.has(ClusterNode.MYSELF | ClusterNode.HANDSHAKE)) {
        continue;
      }
      if (oldest == null || oldest.pongReceivedMillis > n.pongReceivedMillis) {
        oldest = n;
      }
    }
    if (oldest != null) {
      sendPing(oldest.link, ClusterMessage.PING);
    }
  }

  void updateState() {
    long now = clock.getAsLong();
    if (firstUpdateMillis == 0) {
      firstUpdateMillis = now;
    }
    if (myself.isMaster()
        && state == STATE_FAIL
        && now - firstUpdateMillis < WRITABLE_DELAY_MILLIS) {
      updateNeeded = true;
      return;
    }
    int newState = STATE_OK;
    if (requireFullCoverage && !everySlotServed()) {
      newState = STATE_FAIL;
    }
    int reachable = 0;
    size = 0;
    for (ClusterNode n : nodes.values()) {
      if (n.isMaster() && n.numSlots > 0) {
        size++;
        if (!n.has(ClusterNode.FAIL | ClusterNode.PFAIL)) {
          reachable++;
        }
      }
    }
    if (reachable < size / 2 + 1) {
      newState = STATE_FAIL;
      amongMinorityMillis = now;
    }
    if (newState != state) {
      long rejoinDelay =
          Math.max(
              MIN_REJOIN_DELAY_MILLIS,
              Math.min(MAX_REJOIN_DELAY_MILLIS, settings.nodeTimeoutMillis()));
      if (newState == STATE_OK && myself.isMaster() && now - amongMinorityMillis < rejoinDelay) {
        return;
      }
      LOGGER.log(Level.WARNING, "Cluster state changed: {0}", newState == STATE_OK ? "ok" : "fail");
      state = newState;
      publish();
    }
  }

  /**
   * Returns true if every slot has an owner that is not failing. The owners' slot counts add up to
   * the slots assigned (a slot's bit is set in its owner's bitmap only, by addSlot and deleteSlot),
   * so this looks at the nodes, not at the 16,384 slots.
   */
  private boolean everySlotServed() {
    int served = 0;
    boolean ok = true;
    for (ClusterNode n : nodes.values()) {
      if (n.numSlots > 0) {
        served += n.numSlots;
        ok &= !n.has(ClusterNode.FAIL);
      }
    }
    ok &= served == HashSlots.SLOTS;
    assert ok == everySlotServedByScan() : "the nodes' slot counts disagree with the slot map";
    return ok;
  }

  private boolean everySlotServedByScan() {
    for (ClusterNode owner : slotOwners) {
      if (owner == null || owner.has(ClusterNode.FAIL)) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- CLUSTER NODES

  /**
   * Returns CLUSTER NODES: one line per node (those with a flag in {@code excludeFlags} left out),
   * each ending in a newline, in Redis's format.
   */
  public synchronized String nodesDescription(int excludeFlags) {
    Map<ClusterNode, StringBuilder> slotsText = slotsTextOfEveryNode();
    StringBuilder text = new StringBuilder();
    for (ClusterNode n : nodes.values()) {
      if ((n.flags & excludeFlags) != 0) {
        continue;
      }
      describe(text, n, slotsText.get(n));
      text.append('\n');
    }
    return text.toString();
  }

  /**
   * Returns the slots part of every node's CLUSTER NODES line (" 0-5460 5462", with this node's
   * migrating and importing slots after its own), made in one pass over the slot map; a node
   * without slots has no entry.
   */
  private Map<ClusterNode, StringBuilder> slotsTextOfEveryNode() {
    Map<ClusterNode, StringBuilder> texts = new IdentityHashMap<>();
    ClusterNode owner = null;
    int start = 0;
    for (int slot = 0; slot <= HashSlots.SLOTS; slot++) {
      ClusterNode here = slot < HashSlots.SLOTS ? slotOwners[slot] : null;
      if (here == owner) {
        continue;
      }
      if (owner != null) {
        appendRange(texts.computeIfAbsent(owner, n -> new StringBuilder()), start, slot - 1);
      }
      owner = here;
      start = slot;
    }
    StringBuilder mine = null;
    for (int slot = migrations.nextSetBit(0); slot >= 0; slot = migrations.nextSetBit(slot + 1)) {
      if (mine == null) {
        mine = texts.computeIfAbsent(myself, n -> new StringBuilder());
      }
      appendMigration(mine, slot);
    }
    return texts;
  }

  private static void appendRange(StringBuilder text, int start, int end) {
    text.append(' ').append(start);
    if (end != start) {
      text.append('-').append(end);
    }
  }

  /** Appends this node's migrating or importing state of {@code slot} ("[5->-id]", "[5-<-id]"). */
  private void appendMigration(StringBuilder text, int slot) {
    if (migratingTo[slot] != null) {
      text.append(" [").append(slot).append("->-").append(migratingTo[slot].name).append(']');
    } else if (importingFrom[slot] != null) {
      text.append(" [").append(slot).append("-<-").append(importingFrom[slot].name).append(']');
    }
  }

  /** Returns a node's CLUSTER NODES line (without the newline). */
  public synchronized String describe(ClusterNode n) {
    StringBuilder slotsText = new StringBuilder();
    for (int[] range : slotRanges(n)) {
      appendRange(slotsText, range[0], range[1]);
    }
    if (n == myself) {
      for (int slot = migrations.nextSetBit(0); slot >= 0; slot = migrations.nextSetBit(slot + 1)) {
        appendMigration(slotsText, slot);
      }
    }
    StringBuilder line = new StringBuilder(128 + slotsText.length());
    describe(line, n, slotsText);
    return line.toString();
  }

  /** Appends a node's CLUSTER NODES line (without the newline) with its slots part, or null. */
  private void describe(StringBuilder line, ClusterNode n, CharSequence slotsText) {
    line.append(n.name)
        .append(' ')
        .append(n.ip)
        .append(':')
        .append(n.port)
        .append('@')
        .append(n.cport);
    if (!n.hostname.isEmpty()) {
      line.append(',').append(n.hostname);
    }
    line.append(' ').append(ClusterNode.flagsText(n.flags));
    line.append(' ').append(n.slaveOf == null ? "-" : n.slaveOf.name);
    long epoch = n.isSlave() && n.slaveOf != null ? n.slaveOf.configEpoch : n.configEpoch;
    line.append(' ').append(n.pingSentMillis).append(' ').append(n.pongReceivedMillis);
    line.append(' ').append(Long.toUnsignedString(epoch));
    line.append(' ')
        .append(n.link != null || n.has(ClusterNode.MYSELF) ? "connected" : "disconnected");
    if (slotsText != null) {
      line.append(slotsText);
    }
  }

  /** Returns a node's slots as ranges {start, end}, in order. */
  static List<int[]> slotRanges(ClusterNode n) {
    List<int[]> ranges = new ArrayList<>();
    if (n.numSlots == 0) {
      return ranges;
    }
    int start = -1;
    for (int slot = 0; slot <= HashSlots.SLOTS; slot++) {
      boolean owned = slot < HashSlots.SLOTS && n.ownsSlot(slot);
      if (owned && start < 0) {
        start = slot;
      } else if (!owned && start >= 0) {
        ranges.add(new int[] {start, slot - 1});
        start = -1;
      }
    }
    return ranges;
  }

  // ---------------------------------------------------------------- command operations

  /**
   * One contiguous run of slots and the master that serves it, with that master's replicas (CLUSTER
   * SLOTS).
   *
   * @param start the first slot
   * @param end the last slot
   * @param master the master
   * @param replicas its replicas that can serve
   */
  public record SlotRange(int start, int end, ClusterNode master, List<ClusterNode> replicas) {}

  /** Returns the slot map as runs of slots with one owner, in slot order (CLUSTER SLOTS). */
  public synchronized List<SlotRange> slotMap() {
    List<SlotRange> ranges = new ArrayList<>();
    ClusterNode owner = null;
    int start = 0;
    for (int slot = 0; slot <= HashSlots.SLOTS; slot++) {
      ClusterNode here = slot < HashSlots.SLOTS ? slotOwners[slot] : null;
      if (here != owner) {
        if (owner != null) {
          ranges.add(new SlotRange(start, slot - 1, owner, availableReplicas(owner)));
        }
        owner = here;
        start = slot;
      }
    }
    return ranges;
  }

  private static List<ClusterNode> availableReplicas(ClusterNode master) {
    List<ClusterNode> replicas = new ArrayList<>();
    for (ClusterNode r : master.replicas) {
      if (!r.has(ClusterNode.FAIL) && r.replOffset != 0) {
        replicas.add(r);
      }
    }
    return replicas;
  }

  /**
   * One shard (CLUSTER SHARDS): a master's slot ranges and the nodes that serve them.
   *
   * @param slots the slot ranges, {start, end} each
   * @param nodes the master then its replicas
   */
  public record Shard(List<int[]> slots, List<ClusterNode> nodes) {}

  /** Returns every master's shard (CLUSTER SHARDS). */
  public synchronized List<Shard> shards() {
    List<Shard> shards = new ArrayList<>();
    for (ClusterNode n : nodes.values()) {
      if (!n.isMaster()) {
        continue;
      }
      List<ClusterNode> members = new ArrayList<>();
      members.add(n);
      members.addAll(n.replicas);
      shards.add(new Shard(slotRanges(n), members));
    }
    return shards;
  }

  /** Returns whether a node is in the FAIL state. */
  public synchronized boolean failed(ClusterNode n) {
    return n.has(ClusterNode.FAIL);
  }

  /** Returns a node's replication offset as this node last heard it. */
  public synchronized long replicationOffset(ClusterNode n) {
    return n.replOffset;
  }

  /**
   * Assigns ({@code delete} false) or removes slots: {@code wanted[s]} is set for each slot named.
   * Returns Redis's error, or null once done. Slots that this node imports stop being imported.
   */
  public synchronized String changeSlots(boolean[] wanted, boolean delete) {
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      if (!wanted[slot]) {
        continue;
      }
      if (delete && slotOwners[slot] == null) {
        return "ERR Slot " + slot + " is already unassigned";
      }
      if (!delete && slotOwners[slot] != null) {
        return "ERR Slot " + slot + " is already busy";
      }
    }
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      if (wanted[slot]) {
        setImporting(slot, null);
        if (delete) {
          deleteSlot(slot);
        } else {
          addSlot(myself, slot);
        }
      }
    }
    todo(true, true, false);
    return afterCommand();
  }

  /** CLUSTER FLUSHSLOTS: removes every slot of this node; returns Redis's error or null. */
  public synchronized String flushSlots() {
    if (keys.keyCount() != 0) {
      return "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.";
    }
    deleteNodeSlots(myself);
    todo(true, true, false);
    return afterCommand();
  }

  /**
   * CLUSTER SETSLOT: {@code action} is importing, migrating, stable or node (lower case), {@code
   * nodeName} null for stable. Returns Redis's error, or null once done.
   */
  public synchronized String setSlot(int slot, String action, String nodeName) {
    if (myself.isSlave()) {
      return "ERR Please use SETSLOT only with masters.";
    }
    ClusterNode n = nodeName == null ? null : nodes.get(nodeName);
    switch (action) {
      case "migrating" -> {
        if (slotOwners[slot] != myself) {
          return "ERR I'm not the owner of hash slot " + slot;
        }
        if (n == null) {
          return "ERR I don't know about node " + nodeName;
        }
        if (n.isSlave()) {
          return "ERR Target node is not a master";
        }
        setMigrating(slot, n);
      }
      case "importing" -> {
        if (slotOwners[slot] == myself) {
          return "ERR I'm already the owner of hash slot " + slot;
        }
        if (n == null) {
          return "ERR I don't know about node " + nodeName;
        }
        if (n.isSlave()) {
          return "ERR Target node is not a master";
        }
        setImporting(slot, n);
      }
      case "stable" -> {
        setImporting(slot, null);
        setMigrating(slot, null);
      }
      case "node" -> {
        String error = setSlotNode(slot, n, nodeName);
        if (error != null) {
          return error;
        }
      }
      default -> {
        return "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP";
      }
    }
    // as Redis: written but not forced, unless the slot's move bumped the epoch or made this node a
    // replica (setSlotNode asks for that); a reshard sends several SETSLOTs per slot
    todo(true, true, false);
    return afterCommand();
  }

  private String setSlotNode(int slot, ClusterNode n, String nodeName) {
    if (n == null) {
      return "ERR Unknown node " + nodeName;
    }
    if (n.isSlave()) {
      return "ERR Target node is not a master";
    }
    long keysInSlot = keys.countKeysInSlot(slot);
    if (slotOwners[slot] == myself && n != myself && keysInSlot != 0) {
      return "ERR Can't assign hashslot "
          + slot
          + " to a different node while I still hold keys for this hash slot.";
    }
    if (keysInSlot == 0 && migratingTo[slot] != null) {
      setMigrating(slot, null);
    }
    boolean wasMine = slotOwners[slot] == myself;
    deleteSlot(slot);
    addSlot(n, slot);
    if (wasMine
        && n != myself
        && myself.numSlots == 0
        && replication.settings().allowReplicaMigration()) {
      LOGGER.log(
          Level.INFO,
          "Configuration change detected. Reconfiguring myself as a replica of {0}",
          n.name);
      setMaster(n);
      todo(true, true, true);
    }
    if (n == myself && importingFrom[slot] != null) {
      if (bumpEpochWithoutConsensus()) {
        LOGGER.log(Level.WARNING, "configEpoch updated after importing slot {0}", slot);
      }
      setImporting(slot, null);
      broadcastPong(false);
    }
    return null;
  }

  boolean bumpEpochWithoutConsensus() {
    long max = maxEpoch();
    if (myself.configEpoch == 0 || myself.configEpoch != max) {
      currentEpoch++;
      myself.configEpoch = currentEpoch;
      todo(true, false);
      LOGGER.log(
          Level.WARNING, "New configEpoch set to {0}", Long.toUnsignedString(myself.configEpoch));
      return true;
    }
    return false;
  }

  /** CLUSTER BUMPEPOCH: returns Redis's status reply ("BUMPED n" or "STILL n"). */
  public synchronized String bumpEpoch() {
    boolean bumped = bumpEpochWithoutConsensus();
    afterEvent();
    return (bumped ? "BUMPED " : "STILL ") + Long.toUnsignedString(myself.configEpoch);
  }

  /**
   * CLUSTER REPLICATE: makes this node a replica of the master {@code name} (its replication then
   * follows that master). Returns Redis's error, or null once done.
   */
  public synchronized String replicate(String name) {
    ClusterNode n = nodes.get(name);
    if (n == null) {
      return "ERR Unknown node " + name;
    }
    if (n == myself) {
      return "ERR Can't replicate myself";
    }
    if (n.isSlave()) {
      return "ERR I can only replicate a master, not a replica.";
    }
    if (myself.isMaster() && (myself.numSlots != 0 || keys.keyCount() != 0)) {
      return "ERR To set a master the node must be empty and without assigned slots.";
    }
    setMaster(n);
    todo(true, true);
    return afterCommand();
  }

  /**
   * CLUSTER FAILOVER [FORCE|TAKEOVER] sent to this node. Returns Redis's error, or null once the
   * failover started (it goes on in the cron).
   */
  public synchronized String failover(boolean force, boolean takeover) {
    String error = failover.manualFailover(force, takeover);
    String stoppedError = afterCommand();
    return error != null ? error : stoppedError;
  }

  /**
   * Makes this node a replica of {@code master} (Redis's clusterSetMaster): a master gives up its
   * migrating and importing slots (it has no slots left), and the replication follows the master.
   */
  void setMaster(ClusterNode master) {
    if (myself.isMaster()) {
      myself.flags &= ~(ClusterNode.MASTER | ClusterNode.MIGRATE_TO);
      myself.flags |= ClusterNode.SLAVE;
      clearMigrations();
    } else if (myself.slaveOf != null) {
      myself.slaveOf.replicas.remove(myself);
    }
    myself.slaveOf = master;
    addReplica(master, myself);
    if (!master.ip.isEmpty()) {
      replication.follow(master.ip, master.port);
    }
    failover.reset();
  }

  /**
   * Adds a replica to a master's list; a master that had a replica may later take a migrating one
   * (Redis's clusterNodeAddSlave sets MIGRATE_TO).
   */
  private static void addReplica(ClusterNode master, ClusterNode replica) {
    if (!master.replicas.contains(replica)) {
      master.replicas.add(replica);
    }
    master.flags |= ClusterNode.MIGRATE_TO;
  }

  /** Moves every slot of {@code oldMaster} to this node (the end of a failover). */
  void takeSlotsOf(ClusterNode oldMaster) {
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      if (oldMaster.ownsSlot(slot)) {
        deleteSlot(slot);
        addSlot(myself, slot);
      }
    }
  }

  /** Increments currentEpoch (a replica starts an election) and returns it. */
  long incrementCurrentEpoch() {
    currentEpoch++;
    return currentEpoch;
  }

  /** Returns the last epoch this master voted in. */
  long lastVoteEpoch() {
    return lastVoteEpoch;
  }

  /** Records a vote in {@code epoch} (written to nodes.conf with the next save). */
  void lastVoteEpoch(long epoch) {
    lastVoteEpoch = epoch;
    todo(true, false);
  }

  /** Returns the cluster size: masters serving at least one slot. */
  int size() {
    return size;
  }

  /** Returns the time now, in milliseconds, from the state's clock. */
  long now() {
    return clock.getAsLong();
  }

  /** Returns the server's replication as this node drives it. */
  NodeReplication replication() {
    return replication;
  }

  /** CLUSTER SET-CONFIG-EPOCH; returns Redis's error or null. */
  public synchronized String setConfigEpoch(long epoch) {
    if (epoch < 0) {
      return "ERR Invalid config epoch specified: " + epoch;
    }
    if (nodes.size() > 1) {
      return "ERR The user can assign a config epoch only when the node does not know any other"
          + " node.";
    }
    if (myself.configEpoch != 0) {
      return "ERR Node config epoch is already non-zero";
    }
    myself.configEpoch = epoch;
    LOGGER.log(Level.WARNING, "configEpoch set to {0} via CLUSTER SET-CONFIG-EPOCH", epoch);
    if (Long.compareUnsigned(currentEpoch, epoch) < 0) {
      currentEpoch = epoch;
    }
    todo(true, true);
    return afterCommand();
  }

  /** CLUSTER FORGET; returns Redis's error or null. */
  public synchronized String forget(String name) {
    ClusterNode n = nodes.get(name);
    if (n == null) {
      return "ERR Unknown node " + name;
    }
    if (n == myself) {
      return "ERR I tried hard but I can't forget myself...";
    }
    if (myself.isSlave() && myself.slaveOf == n) {
      return "ERR Can't forget my master!";
    }
    blacklist.put(n.name, clock.getAsLong() + BLACKLIST_TTL_MILLIS);
    deleteNode(n);
    todo(true, true);
    return afterCommand();
  }

  /** CLUSTER COUNT-FAILURE-REPORTS; returns the count, or -1 for an unknown node. */
  public synchronized int countFailureReports(String name) {
    ClusterNode n = nodes.get(name);
    return n == null ? -1 : failureReportCount(n);
  }

  /** CLUSTER REPLICAS: a master's replicas' lines, or null for an unknown node. */
  public synchronized List<String> replicaLines(ClusterNode master) {
    List<String> lines = new ArrayList<>();
    for (ClusterNode r : master.replicas) {
      lines.add(describe(r));
    }
    return lines;
  }

  /** CLUSTER RESET [HARD]; returns Redis's error or null. */
  public synchronized String reset(boolean hard) {
    if (myself.isMaster() && keys.keyCount() != 0) {
      return "ERR CLUSTER RESET can't be called with master nodes containing keys";
    }
    if (myself.isSlave()) {
      setNodeAsMaster(myself);
      replication.promote();
    }
    failover.reset();
    clearMigrations();
    for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
      deleteSlot(slot);
    }
    for (ClusterNode n : new ArrayList<>(nodes.values())) {
      if (n != myself) {
        deleteNode(n);
      }
    }
    if (hard) {
      currentEpoch = 0;
      lastVoteEpoch = 0;
      myself.configEpoch = 0;
      LOGGER.log(Level.WARNING, "configEpoch set to 0 via CLUSTER RESET HARD");
      renameNode(myself, randomName());
      LOGGER.log(Level.INFO, "Node hard reset, now I''m {0}", myself.name);
    }
    todo(true, true);
    return afterCommand();
  }

  /** CLUSTER SAVECONFIG: writes nodes.conf now; returns Redis's error or null. */
  public synchronized String saveConfig() {
    fsyncNeeded = true;
    return saveNow() ? null : "ERR error saving the cluster node config: " + saveError;
  }

  /** CLUSTER INFO's text, lines ending in CRLF, as Redis 7.0 writes it. */
  public synchronized String info() {
    int assigned = 0;
    int ok = 0;
    int pfail = 0;
    int fail = 0;
    for (ClusterNode n : slotOwners) {
      if (n == null) {
        continue;
      }
      assigned++;
      if (n.has(ClusterNode.FAIL)) {
        fail++;
      } else if (n.has(ClusterNode.PFAIL)) {
        pfail++;
      } else {
        ok++;
      }
    }
    long myEpoch =
        myself.isSlave() && myself.slaveOf != null
            ? myself.slaveOf.configEpoch
            : myself.configEpoch;
    StringBuilder info = new StringBuilder();
    info.append("cluster_state:").append(state == STATE_OK ? "ok" : "fail").append("\r\n");
    info.append("cluster_slots_assigned:").append(assigned).append("\r\n");
    info.append("cluster_slots_ok:").append(ok).append("\r\n");
    info.append("cluster_slots_pfail:").append(pfail).append("\r\n");
    info.append("cluster_slots_fail:").append(fail).append("\r\n");
    info.append("cluster_known_nodes:").append(nodes.size()).append("\r\n");
    info.append("cluster_size:").append(size).append("\r\n");
    info.append("cluster_current_epoch:")
        .append(Long.toUnsignedString(currentEpoch))
        .append("\r\n");
    info.append("cluster_my_epoch:").append(Long.toUnsignedString(myEpoch)).append("\r\n");
    appendStats(info, sent, "sent");
    appendStats(info, received, "received");
    info.append("total_cluster_links_buffer_limit_exceeded:0\r\n");
    return info.toString();
  }

  private static void appendStats(StringBuilder info, long[] counts, String direction) {
    long total = 0;
    for (int type = 0; type < counts.length; type++) {
      if (counts[type] == 0) {
        continue;
      }
      total += counts[type];
      info.append("cluster_stats_messages_")
          .append(ClusterMessage.typeName(type))
          .append('_')
          .append(direction)
          .append(':')
          .append(counts[type])
          .append("\r\n");
    }
    info.append("cluster_stats_messages_")
        .append(direction)
        .append(':')
        .append(total)
        .append("\r\n");
  }

  /**
   * One bus link as CLUSTER LINKS describes it.
   *
   * @param direction "to" (opened by this node) or "from"
   * @param node the other node's id
   * @param createTimeMillis when it was created
   * @param pendingBytes bytes queued to send
   */
  public record LinkInfo(String direction, String node, long createTimeMillis, long pendingBytes) {}

  /** Returns every link that belongs to a known node (CLUSTER LINKS). */
  public synchronized List<LinkInfo> links() {
    List<LinkInfo> links = new ArrayList<>();
    for (ClusterNode n : nodes.values()) {
      if (n == myself) {
        continue;
      }
      for (Link link : new Link[] {n.link, n.inboundLink}) {
        if (link != null) {
          links.add(
              new LinkInfo(
                  link.inbound() ? "from" : "to",
                  n.name,
                  link.createdMillis(),
                  link.pendingBytes()));
        }
      }
    }
    return links;
  }

  /** Closes every link (the server stops). */
  public synchronized void closeAll() {
    Collection<ClusterNode> all = new ArrayList<>(nodes.values());
    for (Iterator<ClusterNode> it = all.iterator(); it.hasNext(); ) {
      closeLinks(it.next());
    }
  }
}
