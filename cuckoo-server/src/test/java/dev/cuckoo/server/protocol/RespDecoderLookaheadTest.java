package dev.cuckoo.server.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoo.server.LeakCheck;
import dev.cuckoo.server.RespClient;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The decoder's look ahead: it shows each complete buffered request once, in order, before decoding
 * it, and decoding is the same with it as without it.
 */
@org.junit.jupiter.api.extension.ExtendWith(LeakCheck.class)
class RespDecoderLookaheadTest {
  private static final long MAX_BULK = 512L * 1024 * 1024;

  /** Records what it is shown, as the decoded requests are joined, and how many looks ended. */
  private static final class Recording implements RequestLookahead {
    final List<String> shown = new ArrayList<>();
    int ends;

    @Override
    public boolean request(byte[] bytes, int[] starts, int[] lengths, int count) {
      StringBuilder joined = new StringBuilder();
      for (int i = 0; i < count; i++) {
        joined
            .append('[')
            .append(new String(bytes, starts[i], lengths[i], StandardCharsets.ISO_8859_1))
            .append(']');
      }
      shown.add(joined.toString());
      return !joined.toString().startsWith("[STOP]");
    }

    @Override
    public void end() {
      ends++;
    }
  }

  private static RespDecoder decoder() {
    return new RespDecoder(MAX_BULK, 1 << 20, 1L << 30, new Authentication(true));
  }

  /** Returns a channel of {@code decoder} whose look ahead shows its requests to {@code shown}. */
  private static EmbeddedChannel channelOf(RespDecoder decoder, RequestLookahead shown) {
    decoder.lookahead(shown);
    return new EmbeddedChannel(decoder);
  }

  private static String join(Object message) {
    if (message instanceof RespDecoder.ProtocolError error) {
      return "error:" + error.message();
    }
    StringBuilder out = new StringBuilder();
    for (byte[] arg : (byte[][]) message) {
      out.append('[').append(new String(arg, StandardCharsets.ISO_8859_1)).append(']');
    }
    return out.toString();
  }

  /** Feeds the bytes in slices of the given lengths (cycled) and returns what was decoded. */
  private static List<String> feed(EmbeddedChannel channel, byte[] data, int[] slices) {
    List<String> out = new ArrayList<>();
    int at = 0;
    for (int i = 0; at < data.length; i++) {
      int length = Math.min(data.length - at, slices[i % slices.length]);
      channel.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(data, at, at + length)));
      at += length;
      Object message;
      while ((message = channel.readInbound()) != null) {
        out.add(join(message));
      }
    }
    return out;
  }

  /** Returns true if every element of {@code part} appears in {@code whole}, in the same order. */
  private static boolean isSubsequence(List<String> part, List<String> whole) {
    int next = 0;
    for (String element : part) {
      while (next < whole.size() && !whole.get(next).equals(element)) {
        next++;
      }
      if (next == whole.size()) {
        return false;
      }
      next++;
    }
    return true;
  }

  private static Object[] randomRequest(Random random, int index) {
    int count = random.nextInt(10) == 0 ? 1 + random.nextInt(80) : 1 + random.nextInt(4);
    Object[] args = new Object[count];
    // the first argument makes every request distinct, so a request shown twice would show
    args[0] = "cmd" + index;
    for (int i = 1; i < count; i++) {
      int length = random.nextInt(100) == 0 ? 5_000 + random.nextInt(3000) : random.nextInt(20);
      byte[] arg = new byte[length];
      random.nextBytes(arg);
      args[i] = arg;
    }
    return args;
  }

  @Test
  void lookahead_randomPipelinesInRandomSlices_showsDecodedRequestsOnceInOrder() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 40; round++) {
      ByteArrayOutputStream data = new ByteArrayOutputStream();
      int requests = 1 + random.nextInt(200);
      for (int i = 0; i < requests; i++) {
        if (random.nextInt(30) == 0) {
          data.writeBytes(("inline" + i + " a b\r\n").getBytes(StandardCharsets.US_ASCII));
        } else {
          data.writeBytes(RespClient.encode(randomRequest(random, i)));
        }
      }
      int[] slices = new int[1 + random.nextInt(5)];
      for (int i = 0; i < slices.length; i++) {
        slices[i] = 1 + random.nextInt(random.nextBoolean() ? 64 : 40_000);
      }
      RespDecoder looking = decoder();
      Recording recording = new Recording();
      EmbeddedChannel withLookahead = channelOf(looking, recording);
      EmbeddedChannel without = new EmbeddedChannel(decoder());
      List<String> decoded = feed(withLookahead, data.toByteArray(), slices);
      String context = "seed " + seed + ", round " + round + ", slices " + Arrays.toString(slices);
      assertEquals(feed(without, data.toByteArray(), slices), decoded, context);
      assertEquals(requests, decoded.size(), context);
      assertTrue(isSubsequence(recording.shown, decoded), context);
      withLookahead.finishAndReleaseAll();
      without.finishAndReleaseAll();
    }
  }

  @Test
  void lookahead_pipelineInOneRead_showsEveryRequestBeforeDecodingIt() {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    List<String> expected = new ArrayList<>();
    pipeline("key", 150, data, expected);
    Recording recording = new Recording();
    EmbeddedChannel channel = channelOf(decoder(), recording);
    assertEquals(expected, feed(channel, data.toByteArray(), new int[] {data.size()}));
    // shown in looks of at most LOOKAHEAD_REQUESTS: 64 + 64 + 22
    assertEquals(expected, recording.shown);
    assertEquals(3, recording.ends);
    channel.finishAndReleaseAll();
  }

  @Test
  void lookahead_oneRequestAtATime_showsEachOnce() {
    Recording recording = new Recording();
    EmbeddedChannel channel = channelOf(decoder(), recording);
    for (int i = 0; i < 5; i++) {
      byte[] request = RespClient.encode("CF.EXISTS", "key", "item" + i);
      assertEquals(
          List.of("[CF.EXISTS][key][item" + i + "]"),
          feed(channel, request, new int[] {request.length}));
    }
    assertEquals(5, recording.shown.size());
    assertEquals(5, recording.ends);
    channel.finishAndReleaseAll();
  }

  @Test
  void lookahead_garbageAfterRequests_decodesAsWithout() {
    byte[] data =
        (new String(RespClient.encode("CF.EXISTS", "k", "a"), StandardCharsets.ISO_8859_1)
                + "*2\r\n$1\r\nx\r\n+oops\r\n"
                + new String(RespClient.encode("PING"), StandardCharsets.ISO_8859_1))
            .getBytes(StandardCharsets.ISO_8859_1);
    Recording recording = new Recording();
    EmbeddedChannel with = channelOf(decoder(), recording);
    EmbeddedChannel without = new EmbeddedChannel(decoder());
    List<String> decoded = feed(with, data, new int[] {data.length});
    assertEquals(feed(without, data, new int[] {data.length}), decoded);
    assertEquals("[CF.EXISTS][k][a]", decoded.get(0));
    assertTrue(decoded.get(1).startsWith("error:ERR Protocol error"), decoded.get(1));
    // the malformed request ends the look: only the first was shown
    assertEquals(List.of("[CF.EXISTS][k][a]"), recording.shown);
    with.finishAndReleaseAll();
    without.finishAndReleaseAll();
  }

  @Test
  void lookahead_declined_passesOverTheRestOfTheBufferedRequests() {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    data.writeBytes(RespClient.encode("A", "1"));
    data.writeBytes(RespClient.encode("STOP"));
    data.writeBytes(RespClient.encode("B", "2"));
    Recording recording = new Recording();
    EmbeddedChannel channel = channelOf(decoder(), recording);
    assertEquals(
        List.of("[A][1]", "[STOP]", "[B][2]"),
        feed(channel, data.toByteArray(), new int[] {data.size()}));
    assertEquals(List.of("[A][1]", "[STOP]"), recording.shown);
    assertEquals(1, recording.ends);
    // the next request that arrives is shown
    byte[] next = RespClient.encode("C");
    assertEquals(List.of("[C]"), feed(channel, next, new int[] {next.length}));
    assertEquals(List.of("[A][1]", "[STOP]", "[C]"), recording.shown);
    channel.finishAndReleaseAll();
  }

  /** Decodes {@code data} in the given slices with a look ahead and without; asserts both agree. */
  private static RespDecoder decodeBothWays(
      Authentication with, Authentication without, long[] limits, byte[] data, int[] slices) {
    RespDecoder looking = new RespDecoder(limits[0], (int) limits[1], limits[2], with);
    EmbeddedChannel withLookahead = channelOf(looking, new Recording());
    EmbeddedChannel plain =
        new EmbeddedChannel(new RespDecoder(limits[0], (int) limits[1], limits[2], without));
    List<String> decoded = feed(withLookahead, data, slices);
    assertEquals(feed(plain, data, slices), decoded, "slices " + Arrays.toString(slices));
    withLookahead.finishAndReleaseAll();
    plain.finishAndReleaseAll();
    return looking;
  }

  /** As above, for connections that have authenticated. */
  private static RespDecoder decodeBothWays(long[] limits, byte[] data, int... slices) {
    return decodeBothWays(new Authentication(true), new Authentication(true), limits, data, slices);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  @Test
  void lookedAhead_pipelineSplitAtEveryByte_decodesAsWithout() {
    byte[] data =
        concat(
            RespClient.encode("CF.EXISTS", "key", "a"),
            RespClient.encode("CF.EXISTS", "key", ""),
            RespClient.encode("cf.exists", "key", "item-3"),
            RespClient.encode("SET", "k", "v", "EX", "10"),
            RespClient.encode("CF.MEXISTS", "key", "x", "yy", "zzz"));
    long[] limits = {MAX_BULK, 1 << 20, 1L << 30};
    long fromLookahead = 0;
    for (int split = 1; split < data.length; split++) {
      RespDecoder looking = decodeBothWays(limits, data, split, data.length - split);
      fromLookahead += looking.requestsFromLookahead();
    }
    assertNotEquals(0, fromLookahead);
    RespDecoder oneRead = decodeBothWays(limits, data, data.length);
    assertEquals(5, oneRead.requestsFromLookahead());
  }

  @Test
  void lookedAhead_lookEndsMidRequest_thatRequestIsParsedAndTheRestLookedAt() {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    int requests = 0;
    // fewer requests than a look shows fill its bytes
    String padding = "p".repeat(100);
    while (data.size() < RespDecoder.LOOKAHEAD_BYTES - 10) {
      data.writeBytes(RespClient.encode("CF.EXISTS", "key", padding + requests++));
    }
    assertTrue(requests < RespDecoder.LOOKAHEAD_REQUESTS, "requests " + requests);
    // this one straddles the end of the first look's bytes
    data.writeBytes(RespClient.encode("CF.EXISTS", "key", "x".repeat(40)));
    requests++;
    for (int i = 0; i < 5; i++) {
      data.writeBytes(RespClient.encode("CF.EXISTS", "key", "after" + i));
      requests++;
    }
    RespDecoder looking =
        decodeBothWays(new long[] {MAX_BULK, 1 << 20, 1L << 30}, data.toByteArray(), data.size());
    // every request but the one the first look's bytes cut: the next look starts after it
    assertEquals(requests - 1, looking.requestsFromLookahead());
  }

  @Test
  void lookedAhead_requestsBreakingLimits_answerAsWithout() {
    byte[] small = RespClient.encode("CF.EXISTS", "key", "a");
    byte[][] breaking = {
      RespClient.encode("A", "1", "2", "3", "4"), // more arguments than allowed
      RespClient.encode("CF.EXISTS", "key", "x".repeat(101)), // a longer bulk
      RespClient.encode("CF.EXISTS", "x".repeat(90), "y".repeat(90)), // a longer request
      "*3\r\n$3\r\nabc\r\n$03\r\nabc\r\n$1\r\nz\r\n".getBytes(StandardCharsets.US_ASCII),
      "*03\r\n$3\r\nabc\r\n$1\r\nz\r\n$1\r\nz\r\n".getBytes(StandardCharsets.US_ASCII),
    };
    long[] limits = {100, 4, 150};
    for (byte[] broken : breaking) {
      byte[] data = concat(small, small, broken, small);
      RespDecoder looking = decodeBothWays(limits, data, data.length);
      assertEquals(2, looking.requestsFromLookahead());
    }
  }

  @Test
  void lookedAhead_beforeAuth_preAuthLimitsAsWithout() {
    byte[] elevenArgs = RespClient.encode("A", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
    byte[] bigBulk =
        RespClient.encode("AUTH", "x".repeat(RespDecoder.MAX_UNAUTHENTICATED_BULK + 1));
    long[] limits = {MAX_BULK, 1 << 20, 1L << 30};
    for (byte[] broken : new byte[][] {elevenArgs, bigBulk}) {
      byte[] data = concat(RespClient.encode("PING"), broken);
      decodeBothWays(
          new Authentication(false),
          new Authentication(false),
          limits,
          data,
          new int[] {data.length});
    }
    // authenticated after the look: the limits are those of the moment the request is emitted
    Authentication with = new Authentication(false);
    RespDecoder looking = new RespDecoder(MAX_BULK, 1 << 20, 1L << 30, with);
    EmbeddedChannel channel = channelOf(looking, new Recording());
    channel
        .pipeline()
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                with.authenticate();
                ctx.fireChannelRead(msg);
              }
            });
    byte[] data = concat(RespClient.encode("AUTH", "pw"), elevenArgs);
    List<String> decoded = feed(channel, data, new int[] {data.length});
    assertEquals(List.of("[AUTH][pw]", "[A][1][2][3][4][5][6][7][8][9][10]"), decoded);
    assertEquals(2, looking.requestsFromLookahead());
    channel.finishAndReleaseAll();
  }

  @Test
  void lookedAhead_anotherConnectionLooksOnTheSameThread_restIsParsedNotTaken() {
    ByteArrayOutputStream first = new ByteArrayOutputStream();
    List<String> expectedFirst = new ArrayList<>();
    pipeline("one", 4, first, expectedFirst);
    // the other connection's requests are as long as this one's, at the same stream offsets; its
    // second breaks its argument limit, which leaves its parsed requests in the thread's copy
    byte[] second =
        concat(
            RespClient.encode("CF.EXISTS", "two", "item0"),
            RespClient.encode("CF.EXISTS", "two", "item1", "x"),
            RespClient.encode("CF.EXISTS", "two", "item2"));
    RespDecoder other = new RespDecoder(MAX_BULK, 3, 1L << 30, new Authentication(true));
    EmbeddedChannel otherChannel = channelOf(other, new Recording());
    RespDecoder looking = decoder();
    EmbeddedChannel channel = channelOf(looking, new Recording());
    List<String> otherDecoded = new ArrayList<>();
    channel
        .pipeline()
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (otherDecoded.isEmpty()) {
                  // the other connection's read, on this thread, while requests of this one wait
                  otherDecoded.addAll(feed(otherChannel, second, new int[] {second.length}));
                }
                ctx.fireChannelRead(msg);
              }
            });
    assertEquals(expectedFirst, feed(channel, first.toByteArray(), new int[] {first.size()}));
    assertEquals(
        List.of("[CF.EXISTS][two][item0]", "error:ERR Protocol error: invalid multibulk length"),
        otherDecoded);
    assertEquals(1, looking.requestsFromLookahead());
    assertEquals(1, other.requestsFromLookahead());
    channel.finishAndReleaseAll();
    otherChannel.finishAndReleaseAll();
  }

  /**
   * Appends {@code count} requests CF.EXISTS {@code key} item0, item1, ... to {@code data} and
   * their decoded form to {@code expected}.
   */
  private static void pipeline(
      String key, int count, ByteArrayOutputStream data, List<String> expected) {
    for (int i = 0; i < count; i++) {
      data.writeBytes(RespClient.encode("CF.EXISTS", key, "item" + i));
      expected.add("[CF.EXISTS][" + key + "][item" + i + "]");
    }
  }
}
