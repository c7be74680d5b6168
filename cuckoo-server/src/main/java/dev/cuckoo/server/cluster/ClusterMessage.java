package dev.cuckoo.server.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * One cluster bus message (Redis's clusterMsg): the header every message carries (the sender's id,
 * epochs, slot bitmap, master, address and flags) and the body of its type. {@link MessageCodec}
 * reads and writes it in Redis's layout.
 *
 * <p>The fields are the message as built or as read; a message is built by the cluster state, sent
 * once, and not shared.
 */
public final class ClusterMessage {
  /** A ping: carries gossip, asks for a PONG. */
  public static final int PING = 0;

  /** The answer to PING and MEET, in the same format. */
  public static final int PONG = 1;

  /** A PING that makes the receiver add the sender to its nodes. */
  public static final int MEET = 2;

  /** A node is failing: every receiver flags it FAIL. */
  public static final int FAIL = 3;

  /** A Pub/Sub message for the whole cluster. */
  public static final int PUBLISH = 4;

  /** A replica asks masters for a vote. */
  public static final int FAILOVER_AUTH_REQUEST = 5;

  /** A master's vote. */
  public static final int FAILOVER_AUTH_ACK = 6;

  /** Another node's slot configuration, sent to a node whose view is old. */
  public static final int UPDATE = 7;

  /** A replica asks its master to pause for a manual failover. */
  public static final int MFSTART = 8;

  /** A module's message. */
  public static final int MODULE = 9;

  /** A sharded Pub/Sub message for the sender's shard. */
  public static final int PUBLISHSHARD = 10;

  /** The number of message types Redis 7.0 counts in CLUSTER INFO. */
  public static final int TYPE_COUNT = 11;

  /** mflags[0]: the master is paused for a manual failover. */
  public static final int MFLAG0_PAUSED = 1;

  /** mflags[0]: vote even though the master is up (manual failover). */
  public static final int MFLAG0_FORCEACK = 1 << 1;

  /** mflags[0]: ping extensions follow the gossip section. */
  public static final int MFLAG0_EXT_DATA = 1 << 2;

  private static final String[] TYPE_NAMES = {
    "ping",
    "pong",
    "meet",
    "fail",
    "publish",
    "auth-req",
    "auth-ack",
    "update",
    "mfstart",
    "module",
    "publishshard"
  };

  /** The message type. */
  int type;

  /** The sender's client port. */
  int port;

  /** The sender's currentEpoch. */
  long currentEpoch;

  /** The sender's (or its master's) configEpoch. */
  long configEpoch;

  /** The sender's replication offset. */
  long offset;

  /** The sender's node id. */
  String sender;

  /** The slots the sender (or its master) serves: bit {@code s % 8} of byte {@code s / 8}. */
  byte[] mySlots = new byte[HashSlots.SLOTS / 8];

  /** The sender's master id, or null for a master. */
  String slaveOf;

  /** The address the sender announces, or "" (the receiver uses the connection's). */
  String myIp = "";

  /** The sender's plaintext client port (0 without TLS). */
  int pport;

  /** The sender's cluster bus port. */
  int cport;

  /** The sender's flags. */
  int flags;

  /** The cluster state as the sender sees it: 0 ok, 1 fail. */
  int state;

  /** The three message flag bytes (MFLAG0_* in the first). */
  byte[] mflags = new byte[3];

  /** PING, PONG, MEET: the gossip section. */
  List<Gossip> gossip = new ArrayList<>();

  /** PING, PONG, MEET: the ping extensions. */
  List<PingExtension> extensions = new ArrayList<>();

  /** FAIL: the failing node's id. */
  String failing;

  /** PUBLISH, PUBLISHSHARD: the channel. */
  byte[] channel;

  /** PUBLISH, PUBLISHSHARD: the message. */
  byte[] message;

  /** UPDATE: the configEpoch of the node the update is about. */
  long updateConfigEpoch;

  /** UPDATE: the id of the node the update is about. */
  String updateNode;

  /** UPDATE: that node's slots. */
  byte[] updateSlots;

  /** MODULE and types this server does not know: the body as it came. */
  byte[] rawBody = new byte[0];

  /** Creates an empty message of a type. */
  public ClusterMessage(int type) {
    this.type = type;
  }

  /** Returns the message type. */
  public int type() {
    return type;
  }

  /** Returns the sender's id. */
  public String sender() {
    return sender;
  }

  /** Returns the gossip section. */
  public List<Gossip> gossip() {
    return gossip;
  }

  /** Returns Redis's name of a message type, as CLUSTER INFO prints it ("unknown" if none). */
  public static String typeName(int type) {
    return type >= 0 && type < TYPE_NAMES.length ? TYPE_NAMES[type] : "unknown";
  }

  /**
   * Returns the first slot at or after {@code from} that is set in a 2048-byte slot bitmap, or -1
   * if none is; whole bytes without a set bit are skipped at once.
   */
  static int nextSlot(byte[] bitmap, int from) {
    int slot = from;
    while (slot < HashSlots.SLOTS) {
      int bits = (bitmap[slot >>> 3] & 0xff) >>> (slot & 7);
      if (bits != 0) {
        return slot + Integer.numberOfTrailingZeros(bits);
      }
      slot = (slot | 7) + 1;
    }
    return -1;
  }

  /** Returns whether slot {@code slot} is set in a 2048-byte slot bitmap. */
  static boolean slotBit(byte[] bitmap, int slot) {
    return (bitmap[slot >>> 3] & (1 << (slot & 7))) != 0;
  }

  @Override
  public String toString() {
    return typeName(type) + " from " + sender;
  }
}
