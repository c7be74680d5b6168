package dev.cuckoo.server.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.LeakCheck;
import dev.cuckoo.server.RespClient;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The request decoder fed byte by byte, with bad lengths, garbage and limits. */
@org.junit.jupiter.api.extension.ExtendWith(LeakCheck.class)
class RespDecoderTest {
  private static final long MAX_BULK = 512L * 1024 * 1024;

  private static EmbeddedChannel channel() {
    return new EmbeddedChannel(
        new RespDecoder(MAX_BULK, 1 << 20, 1L << 30, new Authentication(true)));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static List<Object> feedByteByByte(EmbeddedChannel channel, byte[] data) {
    List<Object> out = new ArrayList<>();
    for (byte b : data) {
      channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
      Object message;
      while ((message = channel.readInbound()) != null) {
        out.add(message);
      }
    }
    return out;
  }

  private static String join(Object message) {
    StringBuilder out = new StringBuilder();
    for (byte[] arg : (byte[][]) message) {
      out.append('[').append(new String(arg, StandardCharsets.ISO_8859_1)).append(']');
    }
    return out.toString();
  }

  private static String protocolError(Object message) {
    return ((RespDecoder.ProtocolError) message).message();
  }

  @Test
  void decode_pipelineSplitByteByByte_yieldsEveryCommandInOrder() {
    EmbeddedChannel channel = channel();
    byte[] data =
        bytes(
            "*2\r\n$4\r\nPING\r\n$0\r\n\r\nPING\r\n*3\r\n$6\r\nCF.ADD\r\n$1\r\nk\r\n"
                + "$5\r\na\r\nb\0\r\n  echo   \"hi there\"  'x y'\n*0\r\n*-1\r\n\r\n");
    List<Object> out = feedByteByByte(channel, data);
    assertEquals(4, out.size());
    assertEquals("[PING][]", join(out.get(0)));
    assertEquals("[PING]", join(out.get(1)));
    assertEquals("[CF.ADD][k][a\r\nb\0]", join(out.get(2)));
    assertEquals("[echo][hi there][x y]", join(out.get(3)));
    assertFalse(channel.finish());
  }

  @Test
  void decode_randomSplits_sameCommandsAsWhole() {
    Random random = new Random(1234);
    byte[] one = RespClient.encode("CF.INSERT", "key", "ITEMS", "a", "bb", new byte[300]);
    byte[] data = new byte[one.length * 20];
    for (int i = 0; i < 20; i++) {
      System.arraycopy(one, 0, data, i * one.length, one.length);
    }
    for (int round = 0; round < 50; round++) {
      EmbeddedChannel channel = channel();
      int at = 0;
      List<Object> out = new ArrayList<>();
      while (at < data.length) {
        int n = 1 + random.nextInt(Math.min(64, data.length - at));
        channel.writeInbound(Unpooled.wrappedBuffer(data, at, n));
        at += n;
        Object message;
        while ((message = channel.readInbound()) != null) {
          out.add(message);
        }
      }
      assertEquals(20, out.size(), "seed 1234 round " + round);
      for (Object message : out) {
        assertEquals(6, ((byte[][]) message).length);
        assertArrayEquals(new byte[300], ((byte[][]) message)[5]);
      }
      channel.finish();
    }
  }

  /**
   * Header lines in every shape, each followed by a PING, fed whole and byte by byte: the commands
   * or the error Redis's rules give (string2ll: no sign but '-', no leading zero).
   */
  @Test
  void decode_headerShapes_answerByRedisRules() {
    String bulkError = "ERR Protocol error: invalid bulk length";
    String[][] cases = {
      {"*1\r\n$4\r\nPING\r\n", "[PING]", "[PING]"},
      {"*2\r\n$0\r\n\r\n$1\r\nx\r\n", "[][x]", "[PING]"},
      {"*1\r\n$01\r\nx\r\n", bulkError},
      {"*01\r\n$1\r\nx\r\n", "ERR Protocol error: invalid multibulk length"},
      {"*1\r\n$-0\r\n", bulkError},
      {"*1\r\n$+1\r\nx\r\n", bulkError},
      {"*1\r\n$1 \r\nx\r\n", bulkError},
      {"*1\r\n$999999999999999999\r\n", bulkError},
      {"*1\r\n$9999999999999999999\r\n", bulkError},
      {"*0\r\n*1\r\n$1\r\nx\r\n", "[x]", "[PING]"},
      {
        "*3\r\n$6\r\nCF.ADD\r\n$2\r\ncf\r\n$10\r\n1234567890\r\n",
        "[CF.ADD][cf][1234567890]",
        "[PING]"
      },
    };
    for (String[] c : cases) {
      List<String> expected = List.of(c).subList(1, c.length);
      byte[] input = bytes(c[0] + "*1\r\n$4\r\nPING\r\n");
      EmbeddedChannel whole = channel();
      whole.writeInbound(Unpooled.wrappedBuffer(input));
      List<String> wholeOut = new ArrayList<>();
      for (Object message; (message = whole.readInbound()) != null; ) {
        wholeOut.add(message instanceof byte[][] ? join(message) : protocolError(message));
      }
      assertEquals(expected, wholeOut, "whole: " + c[0]);
      EmbeddedChannel split = channel();
      List<String> splitOut = new ArrayList<>();
      for (Object message : feedByteByByte(split, input)) {
        splitOut.add(message instanceof byte[][] ? join(message) : protocolError(message));
      }
      assertEquals(expected, splitOut, "byte by byte: " + c[0]);
      whole.finish();
      split.finish();
    }
  }

  @Test
  void decode_badLengths_protocolErrorsThenInputDiscarded() {
    String[][] cases = {
      {"*abc\r\n", "ERR Protocol error: invalid multibulk length"},
      {"*2147483648\r\n", "ERR Protocol error: invalid multibulk length"},
      {"*1048577\r\n", "ERR Protocol error: invalid multibulk length"},
      {"*1\r\n$-1\r\n", "ERR Protocol error: invalid bulk length"},
      {"*1\r\n$536870913\r\n", "ERR Protocol error: invalid bulk length"},
      {"*1\r\n$99999999999999999999999\r\n", "ERR Protocol error: invalid bulk length"},
      {"*1\r\n$x\r\n", "ERR Protocol error: invalid bulk length"},
      {"*1\r\n:5\r\n", "ERR Protocol error: expected '$', got ':'"},
      {"PING \"unbalanced\r\n", "ERR Protocol error: unbalanced quotes in request"},
    };
    for (String[] c : cases) {
      EmbeddedChannel channel = channel();
      List<Object> out = feedByteByByte(channel, bytes(c[0] + "*1\r\n$4\r\nPING\r\n"));
      assertEquals(1, out.size(), c[0]);
      assertEquals(c[1], protocolError(out.get(0)), c[0]);
      channel.finish();
    }
  }

  @Test
  void decode_hugeInlineWithoutNewline_errorsAtLimit() {
    EmbeddedChannel channel = channel();
    byte[] junk = new byte[RespDecoder.MAX_LINE + 10];
    java.util.Arrays.fill(junk, (byte) 'a');
    channel.writeInbound(Unpooled.wrappedBuffer(junk));
    Object message = channel.readInbound();
    assertEquals("ERR Protocol error: too big inline request", protocolError(message));
    assertNull(channel.readInbound());
    channel.finish();
  }

  @Test
  void decode_claimedHugeArray_allocatesOnlyForArgumentsThatArrive() {
    EmbeddedChannel channel =
        new EmbeddedChannel(new RespDecoder(MAX_BULK, 1 << 27, 1L << 30, new Authentication(true)));
    long before = usedHeap();
    channel.writeInbound(Unpooled.wrappedBuffer(bytes("*134217728\r\n$1\r\na\r\n$500000000\r\n")));
    assertNull(channel.readInbound());
    long grown = usedHeap() - before;
    assertTrue(grown < 64L * 1024 * 1024, "heap grew by " + grown + " bytes");
    channel.finish();
  }

  @Test
  void decode_millionElementArray_decodedWhole() {
    EmbeddedChannel channel = channel();
    // paranoid leak detection records a stack trace per buffer access; this test makes millions
    channel.config().setAllocator(new UnpooledByteBufAllocator(false, true));
    StringBuilder request = new StringBuilder("*1000000\r\n");
    for (int i = 0; i < 1_000_000; i++) {
      request.append("$1\r\nx\r\n");
    }
    byte[] data = bytes(request.toString());
    for (int at = 0; at < data.length; at += 65536) {
      channel.writeInbound(Unpooled.wrappedBuffer(data, at, Math.min(65536, data.length - at)));
    }
    byte[][] args = channel.readInbound();
    assertEquals(1_000_000, args.length);
    channel.finish();
  }

  @Test
  void decode_binaryGarbage_neverThrowsAndEndsInErrorOrCommands() {
    Random random = new Random(99);
    for (int round = 0; round < 200; round++) {
      EmbeddedChannel channel = channel();
      byte[] garbage = new byte[1 + random.nextInt(2000)];
      random.nextBytes(garbage);
      if (round % 2 == 0) {
        garbage[0] = '*';
      }
      channel.writeInbound(Unpooled.wrappedBuffer(garbage));
      Object message;
      while ((message = channel.readInbound()) != null) {
        assertTrue(message instanceof byte[][] || message instanceof RespDecoder.ProtocolError);
      }
      channel.finish();
      channel.releaseInbound();
    }
  }

  @Test
  void decode_bulkOf36MiB_accepted() {
    EmbeddedChannel channel = channel();
    int size = 36 * 1024 * 1024;
    byte[] prefix = bytes("*2\r\n$4\r\nECHO\r\n$" + size + "\r\n");
    channel.writeInbound(Unpooled.wrappedBuffer(prefix));
    byte[] chunk = new byte[1 << 20];
    for (int i = 0; i < 36; i++) {
      channel.writeInbound(Unpooled.wrappedBuffer(chunk));
    }
    assertNull(channel.readInbound());
    channel.writeInbound(Unpooled.wrappedBuffer(bytes("\r\n")));
    byte[][] args = channel.readInbound();
    assertEquals(size, args[1].length);
    channel.finish();
  }

  @Test
  void decode_closeMidFrame_releasesEverything() {
    List<ByteBuf> allocated = new ArrayList<>();
    EmbeddedChannel channel = channel();
    channel
        .config()
        .setAllocator(
            new AbstractByteBufAllocator(false) {
              @Override
              protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                ByteBuf buffer = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
                allocated.add(buffer);
                return buffer;
              }

              @Override
              protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                ByteBuf buffer = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
                allocated.add(buffer);
                return buffer;
              }

              @Override
              public boolean isDirectBufferPooled() {
                return false;
              }
            });
    List<ByteBuf> fed = new ArrayList<>();
    // the last piece ends inside a length line, so the decoder must hold bytes when closed
    for (String piece : List.of("*3\r\n$6\r\nCF.A", "DD\r\n$3\r\nke", "y\r\n$1")) {
      ByteBuf buffer = Unpooled.wrappedBuffer(bytes(piece));
      fed.add(buffer);
      channel.writeInbound(buffer);
    }
    assertNull(channel.readInbound());
    assertTrue(channel.pipeline().get(RespDecoder.class).bufferedBytes() > 0, "bytes held");

    assertFalse(channel.finish());

    for (int i = 0; i < fed.size(); i++) {
      assertEquals(0, fed.get(i).refCnt(), "refCnt of fed buffer " + i);
    }
    for (int i = 0; i < allocated.size(); i++) {
      assertEquals(0, allocated.get(i).refCnt(), "refCnt of allocated buffer " + i);
    }
  }

  @Test
  void decode_bulkSplitByteByByte_arrivesIntact() {
    EmbeddedChannel channel = channel();
    byte[] value = new byte[70_000];
    new Random(7).nextBytes(value);
    List<Object> out = feedByteByByte(channel, RespClient.encode("ECHO", value, "tail"));
    assertEquals(1, out.size());
    byte[][] args = (byte[][]) out.get(0);
    assertArrayEquals(value, args[1]);
    assertEquals("tail", new String(args[2], StandardCharsets.US_ASCII));
    assertFalse(channel.finish());
  }

  @Test
  void decode_largeBulkInManyChunks_arrivesIntactAndIsNeverBuffered() {
    EmbeddedChannel channel = channel();
    RespDecoder decoder = channel.pipeline().get(RespDecoder.class);
    Random random = new Random(42);
    byte[] value = new byte[24 * 1024 * 1024 + 13];
    random.nextBytes(value);
    byte[] data = RespClient.encode("CF.ADD", "key", value);
    int headerEnd = data.length - value.length - 2;
    int at = 0;
    List<Object> out = new ArrayList<>();
    while (at < data.length) {
      int n = Math.min(1 + random.nextInt(100_000), data.length - at);
      channel.writeInbound(Unpooled.wrappedBuffer(data, at, n));
      at += n;
      if (at > headerEnd && at < data.length - 2) {
        assertEquals(0, decoder.bufferedBytes(), "bytes held back at offset " + at);
      }
      Object message;
      while ((message = channel.readInbound()) != null) {
        out.add(message);
      }
    }
    assertEquals(1, out.size());
    assertArrayEquals(value, ((byte[][]) out.get(0))[2]);
    assertFalse(channel.finish());
  }

  @Test
  void decode_hugeClaimWithFewBytes_allocatesForArrivedBytesOnly() {
    EmbeddedChannel channel = channel();
    long before = usedHeap();
    channel.writeInbound(Unpooled.wrappedBuffer(bytes("*1\r\n$500000000\r\n")));
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[1000]));
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[1000]));
    assertNull(channel.readInbound());
    long grown = usedHeap() - before;
    assertTrue(grown < 64L * 1024 * 1024, "heap grew by " + grown + " bytes");
    channel.finish();
  }

  private static EmbeddedChannel unauthenticated(Authentication authentication) {
    return new EmbeddedChannel(new RespDecoder(MAX_BULK, 1 << 20, 1L << 30, authentication));
  }

  @Test
  void decode_unauthenticatedMoreThanTenArguments_unauthenticatedMultibulkLength() {
    EmbeddedChannel channel = unauthenticated(new Authentication(false));
    List<Object> out = feedByteByByte(channel, bytes("*11\r\n*1\r\n$4\r\nPING\r\n"));
    assertEquals(1, out.size());
    assertEquals("ERR Protocol error: unauthenticated multibulk length", protocolError(out.get(0)));
    channel.finish();
  }

  @Test
  void decode_unauthenticatedBulkOver16384_unauthenticatedBulkLength() {
    EmbeddedChannel channel = unauthenticated(new Authentication(false));
    List<Object> out = feedByteByByte(channel, bytes("*1\r\n$16385\r\n*1\r\n$4\r\nPING\r\n"));
    assertEquals(1, out.size());
    assertEquals("ERR Protocol error: unauthenticated bulk length", protocolError(out.get(0)));
    channel.finish();
  }

  @Test
  void decode_unauthenticatedAtTheLimits_accepted() {
    EmbeddedChannel channel = unauthenticated(new Authentication(false));
    Object[] ten = new Object[10];
    java.util.Arrays.fill(ten, "a");
    ten[9] = new byte[16384];
    byte[] inline = bytes("PING " + "x".repeat(20_000) + "\r\n");
    channel.writeInbound(
        Unpooled.wrappedBuffer(RespClient.encode(ten)), Unpooled.wrappedBuffer(inline));
    byte[][] first = channel.readInbound();
    assertEquals(10, first.length);
    assertEquals(16384, first[9].length);
    byte[][] second = channel.readInbound();
    assertEquals(20_000, second[1].length);
    assertFalse(channel.finish());
  }

  @Test
  void decode_authInSameReadAsBigBulk_bigBulkAccepted() {
    Authentication authentication = new Authentication(false);
    List<Object> executed = new ArrayList<>();
    EmbeddedChannel channel =
        new EmbeddedChannel(
            new RespDecoder(MAX_BULK, 1 << 20, 1L << 30, authentication),
            new io.netty.channel.ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                executed.add(msg);
                if (msg instanceof byte[][] && join(msg).startsWith("[AUTH]")) {
                  authentication.authenticate();
                }
              }
            });
    byte[] auth = RespClient.encode("AUTH", "pw");
    byte[] echo = RespClient.encode("ECHO", new byte[100_000]);
    byte[] both = java.util.Arrays.copyOf(auth, auth.length + echo.length);
    System.arraycopy(echo, 0, both, auth.length, echo.length);
    channel.writeInbound(Unpooled.wrappedBuffer(both));
    assertEquals(2, executed.size());
    assertInstanceOf(byte[][].class, executed.get(1));
    assertEquals(100_000, ((byte[][]) executed.get(1))[1].length);
    assertFalse(channel.finish());
  }

  private static long usedHeap() {
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /**
   * What CLIENT LIST reads of the decoder: an incomplete header waits in the cumulation buffer
   * (qbuf), a big bulk still arriving is held in its own array (qbuf, the rest of the array
   * qbuf-free), the arguments already whole count as argv-mem, and all of it is gone once the
   * request is out.
   */
  @Test
  void heldBytes_whileARequestArrives_countWhatWaits() {
    EmbeddedChannel channel = channel();
    RespDecoder decoder = channel.pipeline().get(RespDecoder.class);
    channel.writeInbound(Unpooled.wrappedBuffer(bytes("*3\r\n$6\r\nCF.ADD\r\n$3\r\nke")));
    assertEquals(2, decoder.heldBytes(), "the start of the second bulk waits");
    assertEquals(6, decoder.partialArgumentBytes());
    assertArrayEquals(bytes("ke"), decoder.heldHead(64));
    channel.writeInbound(Unpooled.wrappedBuffer(bytes("y\r\n$100000\r\n")));
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[60_000]));
    assertEquals(60_000, decoder.heldBytes());
    assertEquals(100_000 - 60_000, decoder.freeBytes(), "the bulk's array holds all of it");
    assertEquals(9, decoder.partialArgumentBytes());
    assertEquals(100_000, decoder.allocatedBytes());
    assertEquals(64, decoder.heldHead(64).length);
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[40_000]));
    channel.writeInbound(Unpooled.wrappedBuffer(bytes("\r\n")));
    assertEquals(3, ((byte[][]) channel.readInbound()).length);
    assertEquals(0, decoder.heldBytes());
    assertEquals(0, decoder.freeBytes());
    assertEquals(0, decoder.partialArgumentBytes());
    assertEquals(0, decoder.allocatedBytes());
    assertFalse(channel.finish());
  }
}
