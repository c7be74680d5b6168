package dev.cuckoo.server.cluster;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads and writes cluster bus messages in Redis 7.0's layout (cluster.h), big-endian as Redis
 * writes them.
 */
public final class MessageCodec {
  /** "RCmb": the first four bytes of every message. */
  static final byte[] SIGNATURE = {'R', 'C', 'm', 'b'};

  /** The bus protocol version Redis 7.0 speaks. */
  static final int VERSION = 1;

  /** The header's length (Redis's CLUSTERMSG_MIN_LEN): the shortest message. */
  public static final int HEADER_LENGTH = 2256;

  /** One gossip entry's length. */
  static final int GOSSIP_LENGTH = 104;

  /** A node id's length. */
  static final int NAME_LENGTH = 40;

  /** An address field's length (NET_IP_STR_LEN), NUL-padded. */
  static final int IP_LENGTH = 46;

  /** The UPDATE body's length: configEpoch, node id, slot bitmap. */
  static final int UPDATE_LENGTH = 8 + NAME_LENGTH + HashSlots.SLOTS / 8;

  /**
   * The longest message this server reads (64 MiB): longer lengths are refused before anything is
   * allocated for them.
   */
  public static final int MAX_LENGTH = 64 << 20;

  private static final int OFFSET_SLOTS = 80;
  private static final int OFFSET_SLAVEOF = 2128;
  private static final int OFFSET_MYIP = 2168;
  private static final int OFFSET_EXTENSIONS = 2214;
  private static final int OFFSET_PPORT = 2246;

  private MessageCodec() {}

  /** Returns the message's bytes, its total length field set. */
  public static byte[] encode(ClusterMessage m) {
    int bodyLength = bodyLength(m);
    ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + bodyLength).order(ByteOrder.BIG_ENDIAN);
    out.put(SIGNATURE);
    out.putInt(HEADER_LENGTH + bodyLength);
    out.putShort((short) VERSION);
    out.putShort((short) m.port);
    out.putShort((short) m.type);
    out.putShort((short) (isPing(m.type) ? m.gossip.size() : 0));
    out.putLong(m.currentEpoch);
    out.putLong(m.configEpoch);
    out.putLong(m.offset);
    putName(out, m.sender);
    out.put(m.mySlots);
    putName(out, m.slaveOf);
    putText(out, m.myIp, IP_LENGTH);
    out.putShort((short) (isPing(m.type) ? m.extensions.size() : 0));
    out.position(OFFSET_PPORT);
    out.putShort((short) m.pport);
    out.putShort((short) m.cport);
    out.putShort((short) m.flags);
    out.put((byte) m.state);
    byte[] mflags = m.mflags.clone();
    if (isPing(m.type) && !m.extensions.isEmpty()) {
      mflags[0] |= ClusterMessage.MFLAG0_EXT_DATA;
    }
    out.put(mflags);
    switch (m.type) {
      case ClusterMessage.PING, ClusterMessage.PONG, ClusterMessage.MEET -> {
        for (Gossip g : m.gossip) {
          putName(out, g.nodeName());
          out.putInt((int) g.pingSentSeconds());
          out.putInt((int) g.pongReceivedSeconds());
          putText(out, g.ip(), IP_LENGTH);
          out.putShort((short) g.port());
          out.putShort((short) g.cport());
          out.putShort((short) g.flags());
          out.putShort((short) g.pport());
          out.putShort((short) 0);
        }
        for (PingExtension e : m.extensions) {
          out.putInt(8 + e.payload().length);
          out.putShort((short) e.type());
          out.putShort((short) 0);
          out.put(e.payload());
        }
      }
      case ClusterMessage.FAIL -> putName(out, m.failing);
      case ClusterMessage.PUBLISH, ClusterMessage.PUBLISHSHARD -> {
        out.putInt(m.channel.length);
        out.putInt(m.message.length);
        out.put(m.channel);
        out.put(m.message);
      }
      case ClusterMessage.UPDATE -> {
        out.putLong(m.updateConfigEpoch);
        putName(out, m.updateNode);
        out.put(m.updateSlots);
      }
      default -> out.put(m.rawBody);
    }
    return out.array();
  }

  private static int bodyLength(ClusterMessage m) {
    return switch (m.type) {
      case ClusterMessage.PING, ClusterMessage.PONG, ClusterMessage.MEET -> {
        int length = GOSSIP_LENGTH * m.gossip.size();
        for (PingExtension e : m.extensions) {
          if (e.payload().length % 8 != 0) {
            throw new IllegalArgumentException(
                "ping extension payload: "
                    + e.payload().length
                    + " bytes (expected: a multiple of 8)");
          }
          length += 8 + e.payload().length;
        }
        yield length;
      }
      case ClusterMessage.FAIL -> NAME_LENGTH;
      case ClusterMessage.PUBLISH, ClusterMessage.PUBLISHSHARD ->
          8 + m.channel.length + m.message.length;
      case ClusterMessage.UPDATE -> UPDATE_LENGTH;
      default -> m.rawBody.length;
    };
  }

  private static boolean isPing(int type) {
    return type == ClusterMessage.PING
        || type == ClusterMessage.PONG
        || type == ClusterMessage.MEET;
  }

  /**
   * Checks the first 8 bytes of a message as they arrive (signature and total length) and returns
   * the total length, so that a reader knows how much to wait for before allocating it.
   *
   * @throws BadClusterMessage for a wrong signature or a length outside {@link #HEADER_LENGTH}..
   *     {@link #MAX_LENGTH}
   */
  public static int frameLength(byte[] first8) {
    if (!Arrays.equals(first8, 0, 4, SIGNATURE, 0, 4)) {
      throw new BadClusterMessage(
          "signature",
          0,
          "'" + new String(first8, 0, 4, StandardCharsets.ISO_8859_1) + "' (expected: 'RCmb')");
    }
    long totlen = ByteBuffer.wrap(first8, 4, 4).getInt() & 0xFFFFFFFFL;
    if (totlen < HEADER_LENGTH || totlen > MAX_LENGTH) {
      throw new BadClusterMessage(
          "totlen", 4, totlen + " (expected: " + HEADER_LENGTH + ".." + MAX_LENGTH + ")");
    }
    return (int) totlen;
  }

  /**
   * Reads one whole message.
   *
   * @throws BadClusterMessage if the signature, version or total length is wrong, or the length
   *     does not match what the type and its counts call for
   */
  public static ClusterMessage decode(byte[] bytes) {
    if (bytes.length < 8) {
      throw new BadClusterMessage(
          "totlen", 4, "message of " + bytes.length + " bytes (expected: >= 8)");
    }
    int totlen = frameLength(Arrays.copyOf(bytes, 8));
    if (totlen != bytes.length) {
      throw new BadClusterMessage(
          "totlen", 4, totlen + " but the message holds " + bytes.length + " bytes");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    int version = in.getShort(8) & 0xFFFF;
    if (version != VERSION) {
      throw new BadClusterMessage("ver", 8, version + " (expected: " + VERSION + ")");
    }
    ClusterMessage m = new ClusterMessage(in.getShort(12) & 0xFFFF);
    m.port = in.getShort(10) & 0xFFFF;
    int count = in.getShort(14) & 0xFFFF;
    m.currentEpoch = in.getLong(16);
    m.configEpoch = in.getLong(24);
    m.offset = in.getLong(32);
    m.sender = name(bytes, 40);
    System.arraycopy(bytes, OFFSET_SLOTS, m.mySlots, 0, m.mySlots.length);
    m.slaveOf = name(bytes, OFFSET_SLAVEOF);
    m.myIp = text(bytes, OFFSET_MYIP, IP_LENGTH);
    int extensions = in.getShort(OFFSET_EXTENSIONS) & 0xFFFF;
    m.pport = in.getShort(OFFSET_PPORT) & 0xFFFF;
    m.cport = in.getShort(OFFSET_PPORT + 2) & 0xFFFF;
    m.flags = in.getShort(OFFSET_PPORT + 4) & 0xFFFF;
    m.state = bytes[OFFSET_PPORT + 6] & 0xFF;
    System.arraycopy(bytes, OFFSET_PPORT + 7, m.mflags, 0, 3);
    int body = totlen - HEADER_LENGTH;
    switch (m.type) {
      case ClusterMessage.PING, ClusterMessage.PONG, ClusterMessage.MEET ->
          readPing(m, bytes, in, count, extensions);
      case ClusterMessage.FAIL -> {
        expect(m, body, NAME_LENGTH);
        m.failing = name(bytes, HEADER_LENGTH);
      }
      case ClusterMessage.PUBLISH, ClusterMessage.PUBLISHSHARD -> {
        if (body < 8) {
          expect(m, body, 8);
        }
        long channelLength = in.getInt(HEADER_LENGTH) & 0xFFFFFFFFL;
        long messageLength = in.getInt(HEADER_LENGTH + 4) & 0xFFFFFFFFL;
        expect(m, body, 8 + channelLength + messageLength);
        m.channel =
            Arrays.copyOfRange(bytes, HEADER_LENGTH + 8, HEADER_LENGTH + 8 + (int) channelLength);
        m.message = Arrays.copyOfRange(bytes, HEADER_LENGTH + 8 + (int) channelLength, totlen);
      }
      case ClusterMessage.FAILOVER_AUTH_REQUEST,
          ClusterMessage.FAILOVER_AUTH_ACK,
          ClusterMessage.MFSTART ->
          expect(m, body, 0);
      case ClusterMessage.UPDATE -> {
        expect(m, body, UPDATE_LENGTH);
        m.updateConfigEpoch = in.getLong(HEADER_LENGTH);
        m.updateNode = name(bytes, HEADER_LENGTH + 8);
        m.updateSlots =
            Arrays.copyOfRange(
                bytes, HEADER_LENGTH + 8 + NAME_LENGTH, HEADER_LENGTH + UPDATE_LENGTH);
      }
      case ClusterMessage.MODULE -> {
        if (body < 13) {
          expect(m, body, 13);
        }
        expect(m, body, 13 + (in.getInt(HEADER_LENGTH + 8) & 0xFFFFFFFFL));
        m.rawBody = Arrays.copyOfRange(bytes, HEADER_LENGTH, totlen);
      }
      default -> m.rawBody = Arrays.copyOfRange(bytes, HEADER_LENGTH, totlen);
    }
    return m;
  }

  private static void readPing(
      ClusterMessage m, byte[] bytes, ByteBuffer in, int count, int extensions) {
    int totlen = bytes.length;
    long expected = HEADER_LENGTH + (long) GOSSIP_LENGTH * count;
    if (expected > totlen) {
      throw new BadClusterMessage(
          "count",
          14,
          count + " gossip entries need " + expected + " bytes but totlen is " + totlen);
    }
    for (int i = 0; i < count; i++) {
      int at = HEADER_LENGTH + i * GOSSIP_LENGTH;
      m.gossip.add(
          new Gossip(
              name(bytes, at),
              in.getInt(at + 40) & 0xFFFFFFFFL,
              in.getInt(at + 44) & 0xFFFFFFFFL,
              text(bytes, at + 48, IP_LENGTH),
              in.getShort(at + 94) & 0xFFFF,
              in.getShort(at + 96) & 0xFFFF,
              in.getShort(at + 98) & 0xFFFF,
              in.getShort(at + 100) & 0xFFFF));
    }
    int at = (int) expected;
    if ((m.mflags[0] & ClusterMessage.MFLAG0_EXT_DATA) != 0) {
      for (int i = 0; i < extensions; i++) {
        if (totlen - at < 8) {
          throw new BadClusterMessage("extension " + i, at, "header runs past totlen " + totlen);
        }
        long length = in.getInt(at) & 0xFFFFFFFFL;
        if (length % 8 != 0 || length < 8) {
          throw new BadClusterMessage(
              "extension " + i + " length", at, length + " (expected: a multiple of 8, >= 8)");
        }
        if (length > totlen - at) {
          throw new BadClusterMessage(
              "extension " + i + " length", at, length + " runs past totlen " + totlen);
        }
        int type = in.getShort(at + 4) & 0xFFFF;
        m.extensions.add(
            new PingExtension(type, Arrays.copyOfRange(bytes, at + 8, at + (int) length)));
        at += (int) length;
      }
    }
    if (at != totlen) {
      expect(m, totlen - HEADER_LENGTH, at - HEADER_LENGTH);
    }
  }

  private static void expect(ClusterMessage m, int body, long expectedBody) {
    if (body != expectedBody) {
      throw new BadClusterMessage(
          "totlen",
          4,
          (HEADER_LENGTH + body)
              + " for a "
              + ClusterMessage.typeName(m.type)
              + " message (expected: "
              + (HEADER_LENGTH + expectedBody)
              + ")");
    }
  }

  /** Reads a 40-byte node id; null if it is all zeros (no node). */
  private static String name(byte[] bytes, int at) {
    boolean empty = true;
    for (int i = at; i < at + NAME_LENGTH; i++) {
      if (bytes[i] != 0) {
        empty = false;
        break;
      }
    }
    return empty ? null : new String(bytes, at, NAME_LENGTH, StandardCharsets.ISO_8859_1);
  }

  private static String text(byte[] bytes, int at, int length) {
    int end = at;
    while (end < at + length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, at, end - at, StandardCharsets.ISO_8859_1);
  }

  private static void putName(ByteBuffer out, String name) {
    if (name == null) {
      out.position(out.position() + NAME_LENGTH);
    } else {
      putText(out, name, NAME_LENGTH);
    }
  }

  /** Writes text NUL-padded to {@code length} bytes (at most length - 1 of text for addresses). */
  private static void putText(ByteBuffer out, String text, int length) {
    byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
    int room = length == NAME_LENGTH ? NAME_LENGTH : length - 1;
    out.put(bytes, 0, Math.min(bytes.length, room));
    out.position(out.position() + length - Math.min(bytes.length, room));
  }
}
