package dev.cuckoo.server.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node of the cluster as this node knows it (Redis's clusterNode): id, flags, address, slots,
 * epochs, liveness times, links and the failure reports other masters sent about it. Guarded by the
 * {@link ClusterState} that holds it.
 */
public final class ClusterNode {
  /** The node is a master. */
  public static final int MASTER = 1;

  /** The node is a replica. */
  public static final int SLAVE = 2;

  /** This node believes it unreachable (PFAIL, "fail?"). */
  public static final int PFAIL = 4;

  /** A majority of masters believe it unreachable (FAIL). */
  public static final int FAIL = 8;

  /** The node is this node. */
  public static final int MYSELF = 16;

  /** The first PONG has not come yet: its id is a placeholder. */
  public static final int HANDSHAKE = 32;

  /** Its address is unknown. */
  public static final int NOADDR = 64;

  /** Send MEET, not PING, on the first connection. */
  public static final int MEET = 128;

  /** A master eligible for replica migration. */
  public static final int MIGRATE_TO = 256;

  /** A replica that will not fail over. */
  public static final int NOFAILOVER = 512;

  private static final int[] FLAG_BITS = {
    MYSELF, MASTER, SLAVE, PFAIL, FAIL, HANDSHAKE, NOADDR, NOFAILOVER
  };
  private static final String[] FLAG_NAMES = {
    "myself", "master", "slave", "fail?", "fail", "handshake", "noaddr", "nofailover"
  };

  String name;
  int flags;
  long configEpoch;
  final byte[] slots = new byte[HashSlots.SLOTS / 8];
  int numSlots;
  ClusterNode slaveOf;
  final List<ClusterNode> replicas = new ArrayList<>();
  final long createdMillis;
  long pingSentMillis;
  long pongReceivedMillis;
  long dataReceivedMillis;
  long failTimeMillis;
  long replOffset;
  String ip = "";
  String hostname = "";
  int port;
  int pport;
  int cport;
  Link link;
  Link inboundLink;
  long lastInPingGossip;
  long votedTimeMillis;
  long orphanedTimeMillis;
  final Map<ClusterNode, Long> failReports = new LinkedHashMap<>();

  ClusterNode(String name, int flags, long createdMillis) {
    this.name = name;
    this.flags = flags;
    this.createdMillis = createdMillis;
  }

  /** Returns the node's 40-character id. */
  public String name() {
    return name;
  }

  /** Returns the node's flags (the constants of this class). */
  public int flags() {
    return flags;
  }

  /** Returns the node's address ("" if unknown yet). */
  public String ip() {
    return ip;
  }

  /** Returns the node's client port. */
  public int port() {
    return port;
  }

  /** Returns the node's cluster bus port. */
  public int cport() {
    return cport;
  }

  boolean has(int flag) {
    return (flags & flag) != 0;
  }

  boolean isMaster() {
    return has(MASTER);
  }

  boolean isSlave() {
    return has(SLAVE);
  }

  boolean ownsSlot(int slot) {
    return ClusterMessage.slotBit(slots, slot);
  }

  /** Sets a slot bit; returns whether it was clear. */
  boolean setSlot(int slot) {
    boolean was = ownsSlot(slot);
    if (!was) {
      slots[slot >>> 3] |= (byte) (1 << (slot & 7));
      numSlots++;
    }
    return !was;
  }

  /** Clears a slot bit; returns whether it was set. */
  boolean clearSlot(int slot) {
    boolean was = ownsSlot(slot);
    if (was) {
      slots[slot >>> 3] &= (byte) ~(1 << (slot & 7));
      numSlots--;
    }
    return was;
  }

  /** Returns the flags as CLUSTER NODES writes them ("myself,master", "noflags" if none). */
  static String flagsText(int flags) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < FLAG_BITS.length; i++) {
      if ((flags & FLAG_BITS[i]) != 0) {
        text.append(text.length() == 0 ? "" : ",").append(FLAG_NAMES[i]);
      }
    }
    return text.length() == 0 ? "noflags" : text.toString();
  }

  /** Returns the flag bit a CLUSTER NODES flag name stands for, 0 for "noflags", -1 if unknown. */
  static int flagBit(String name) {
    for (int i = 0; i < FLAG_NAMES.length; i++) {
      if (FLAG_NAMES[i].equalsIgnoreCase(name)) {
        return FLAG_BITS[i];
      }
    }
    return name.equalsIgnoreCase("noflags") ? 0 : -1;
  }

  @Override
  public String toString() {
    return name + " " + ip + ":" + port + "@" + cport + " " + flagsText(flags);
  }
}
