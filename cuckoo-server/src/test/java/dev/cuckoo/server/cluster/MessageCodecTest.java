package dev.cuckoo.server.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The bus codec against messages built by hand from Redis 7.0's struct layout (cluster.h: field
 * offsets as its static asserts pin them), and against corrupt input.
 */
class MessageCodecTest {
  private static final String A = "a".repeat(40);
  private static final String B = "0123456789abcdef0123456789abcdef01234567";

  /** Writes text at {@code offset} of {@code bytes}. */
  private static void put(byte[] bytes, int offset, String text) {
    byte[] t = text.getBytes(StandardCharsets.ISO_8859_1);
    System.arraycopy(t, 0, bytes, offset, t.length);
  }

  /** A clusterMsg header as Redis lays it out, big-endian, with the given type and total length. */
  private static ByteBuffer header(int type, int totlen, int count) {
    ByteBuffer b = ByteBuffer.allocate(totlen);
    b.put(0, (byte) 'R').put(1, (byte) 'C').put(2, (byte) 'm').put(3, (byte) 'b');
    b.putInt(4, totlen);
    b.putShort(8, (short) 1); // ver
    b.putShort(10, (short) 30001); // port
    b.putShort(12, (short) type);
    b.putShort(14, (short) count);
    b.putLong(16, 7); // currentEpoch
    b.putLong(24, 5); // configEpoch
    b.putLong(32, 1234); // offset
    put(b.array(), 40, A); // sender
    b.put(80, (byte) 0x01); // myslots: slot 0
    b.put(80 + 2047, (byte) 0x80); // slot 16383
    // slaveof at 2128 stays zero: a master
    put(b.array(), 2168, "10.0.0.1"); // myip
    b.putShort(2248, (short) 40001); // cport
    b.putShort(2250, (short) (ClusterNode.MASTER | ClusterNode.MYSELF)); // flags
    b.put(2252, (byte) 1); // state: fail
    return b;
  }

  @Test
  void decode_handBuiltPingWithGossip_readsEveryField() {
    ByteBuffer b = header(ClusterMessage.PING, 2256 + 104, 1);
    int g = 2256;
    put(b.array(), g, B);
    b.putInt(g + 40, 1_700_000_000);
    b.putInt(g + 44, 1_700_000_001);
    put(b.array(), g + 48, "127.0.0.1");
    b.putShort(g + 94, (short) 30002);
    b.putShort(g + 96, (short) 40002);
    b.putShort(g + 98, (short) (ClusterNode.MASTER | ClusterNode.PFAIL));
    ClusterMessage m = MessageCodec.decode(b.array());
    assertEquals(ClusterMessage.PING, m.type);
    assertEquals(30001, m.port);
    assertEquals(7, m.currentEpoch);
    assertEquals(5, m.configEpoch);
    assertEquals(1234, m.offset);
    assertEquals(A, m.sender);
    assertNull(m.slaveOf);
    assertEquals("10.0.0.1", m.myIp);
    assertEquals(40001, m.cport);
    assertEquals(17, m.flags);
    assertEquals(1, m.state);
    assertTrue(ClusterMessage.slotBit(m.mySlots, 0));
    assertTrue(ClusterMessage.slotBit(m.mySlots, 16383));
    assertTrue(!ClusterMessage.slotBit(m.mySlots, 1));
    assertEquals(
        new Gossip(B, 1_700_000_000L, 1_700_000_001L, "127.0.0.1", 30002, 40002, 5, 0).toString(),
        m.gossip.get(0).toString());
    // and writing it back gives the same bytes
    assertArrayEquals(b.array(), MessageCodec.encode(m));
  }

  @Test
  void decode_handBuiltFailAndUpdate_readBodies() {
    ByteBuffer fail = header(ClusterMessage.FAIL, 2296, 0);
    put(fail.array(), 2256, B);
    ClusterMessage m = MessageCodec.decode(fail.array());
    assertEquals(B, m.failing);
    assertArrayEquals(fail.array(), MessageCodec.encode(m));

    ByteBuffer update = header(ClusterMessage.UPDATE, 2256 + 2096, 0);
    update.putLong(2256, 42);
    put(update.array(), 2264, B);
    update.put(2304 + 1, (byte) 0x02); // slot 9
    ClusterMessage u = MessageCodec.decode(update.array());
    assertEquals(42, u.updateConfigEpoch);
    assertEquals(B, u.updateNode);
    assertTrue(ClusterMessage.slotBit(u.updateSlots, 9));
    assertArrayEquals(update.array(), MessageCodec.encode(u));
  }

  @Test
  void decode_publishAndAuthRequest_lengthsFromTheirFields() {
    ByteBuffer publish = header(ClusterMessage.PUBLISH, 2256 + 8 + 2 + 5, 0);
    publish.putInt(2256, 2).putInt(2260, 5);
    put(publish.array(), 2264, "chhello");
    ClusterMessage p = MessageCodec.decode(publish.array());
    assertEquals("ch", new String(p.channel, StandardCharsets.UTF_8));
    assertEquals("hello", new String(p.message, StandardCharsets.UTF_8));
    assertArrayEquals(publish.array(), MessageCodec.encode(p));

    ByteBuffer auth = header(ClusterMessage.FAILOVER_AUTH_REQUEST, 2256, 0);
    auth.put(2253, (byte) ClusterMessage.MFLAG0_FORCEACK);
    ClusterMessage a = MessageCodec.decode(auth.array());
    assertEquals(ClusterMessage.MFLAG0_FORCEACK, a.mflags[0]);
    assertArrayEquals(auth.array(), MessageCodec.encode(a));
  }

  @Test
  void decode_pingWithExtensions_readsHostnameAnd72Types() {
    // hostname "node-1" (7 bytes with NUL, padded to 8) and a 7.2 shard id (40 bytes)
    int totlen = 2256 + 16 + 48;
    ByteBuffer b = header(ClusterMessage.PONG, totlen, 0);
    b.putShort(2214, (short) 2);
    b.put(2253, (byte) ClusterMessage.MFLAG0_EXT_DATA);
    b.putInt(2256, 16).putShort(2260, (short) PingExtension.HOSTNAME);
    put(b.array(), 2264, "node-1");
    b.putInt(2272, 48).putShort(2276, (short) PingExtension.SHARD_ID);
    put(b.array(), 2280, B);
    ClusterMessage m = MessageCodec.decode(b.array());
    assertEquals(2, m.extensions.size());
    assertEquals("node-1", m.extensions.get(0).asText());
    assertEquals(PingExtension.SHARD_ID, m.extensions.get(1).type());
    assertArrayEquals(b.array(), MessageCodec.encode(m));
  }

  @Test
  void decode_wrongSignatureVersionOrLength_refused() {
    byte[] good = header(ClusterMessage.MFSTART, 2256, 0).array();
    byte[] sig = good.clone();
    sig[0] = 'X';
    assertTrue(
        assertThrows(BadClusterMessage.class, () -> MessageCodec.decode(sig))
            .getMessage()
            .startsWith("signature at offset 0"));
    byte[] version = good.clone();
    version[9] = 2;
    assertTrue(
        assertThrows(BadClusterMessage.class, () -> MessageCodec.decode(version))
            .getMessage()
            .contains("ver at offset 8: 2"));
    byte[] longer = Arrays.copyOf(good, 2257);
    ByteBuffer.wrap(longer).putInt(4, 2257);
    assertTrue(
        assertThrows(BadClusterMessage.class, () -> MessageCodec.decode(longer))
            .getMessage()
            .contains("expected: 2256"));
    byte[] huge = good.clone();
    ByteBuffer.wrap(huge).putInt(4, -1);
    assertThrows(BadClusterMessage.class, () -> MessageCodec.frameLength(Arrays.copyOf(huge, 8)));
    byte[] tooShort = good.clone();
    ByteBuffer.wrap(tooShort).putInt(4, 100);
    assertThrows(
        BadClusterMessage.class, () -> MessageCodec.frameLength(Arrays.copyOf(tooShort, 8)));
    // a gossip count that runs past the message
    byte[] count = good.clone();
    ByteBuffer.wrap(count).putShort(12, (short) ClusterMessage.PING).putShort(14, (short) 3);
    assertTrue(
        assertThrows(BadClusterMessage.class, () -> MessageCodec.decode(count))
            .getMessage()
            .startsWith("count at offset 14"));
  }

  @Test
  void decode_truncatedOrBitFlipped_refusedOrReadNeverCrashes() {
    ClusterMessage ping = new ClusterMessage(ClusterMessage.PING);
    ping.sender = A;
    ping.gossip.add(new Gossip(B, 1, 2, "127.0.0.1", 1, 2, 1, 0));
    ping.extensions.add(PingExtension.text(PingExtension.HOSTNAME, "host"));
    byte[] good = MessageCodec.encode(ping);
    for (int length = 0; length < good.length; length += 7) {
      byte[] cut = Arrays.copyOf(good, length);
      assertThrows(BadClusterMessage.class, () -> MessageCodec.decode(cut), "cut at " + length);
    }
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int i = 0; i < 20_000; i++) {
      byte[] bad = good.clone();
      int flips = 1 + random.nextInt(4);
      for (int f = 0; f < flips; f++) {
        // most flips in the lengths, counts and the extension headers
        int at =
            random.nextBoolean()
                ? random.nextInt(bad.length)
                : new int[] {
                      4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 2214, 2215, 2253, 2360, 2361, 2362, 2363
                    }
                    [random.nextInt(17)];
        bad[at] ^= (byte) (1 << random.nextInt(8));
      }
      try {
        MessageCodec.decode(bad);
      } catch (BadClusterMessage expected) {
        // refused: fine
      } catch (RuntimeException e) {
        throw new AssertionError("seed " + seed + " flip round " + i + ": " + e, e);
      }
    }
  }

  @Test
  void nextSlot_visitsExactlyTheSetBits() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      byte[] bitmap = new byte[HashSlots.SLOTS / 8];
      // sparse, dense and empty maps, and the two ends
      int density = round % 4 == 0 ? 0 : 1 + random.nextInt(round % 2 == 0 ? 3 : 2000);
      for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
        if (density > 0 && random.nextInt(density) == 0) {
          bitmap[slot >>> 3] |= (byte) (1 << (slot & 7));
        }
      }
      if (round % 3 == 0) {
        bitmap[0] |= 1;
        bitmap[bitmap.length - 1] |= (byte) 0x80;
      }
      StringBuilder expected = new StringBuilder();
      for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
        if (ClusterMessage.slotBit(bitmap, slot)) {
          expected.append(slot).append(' ');
        }
      }
      StringBuilder visited = new StringBuilder();
      for (int slot = ClusterMessage.nextSlot(bitmap, 0);
          slot >= 0;
          slot = ClusterMessage.nextSlot(bitmap, slot + 1)) {
        visited.append(slot).append(' ');
      }
      assertEquals(expected.toString(), visited.toString(), "seed " + seed + ", round " + round);
    }
    byte[] last = new byte[HashSlots.SLOTS / 8];
    last[last.length - 1] = (byte) 0x80;
    assertEquals(16383, ClusterMessage.nextSlot(last, 0));
    assertEquals(16383, ClusterMessage.nextSlot(last, 16383));
    assertEquals(-1, ClusterMessage.nextSlot(last, HashSlots.SLOTS));
    assertEquals(-1, ClusterMessage.nextSlot(new byte[HashSlots.SLOTS / 8], 0));
  }
}
