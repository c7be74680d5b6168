package dev.cuckoo.server.cluster;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;

/** How the cluster bus secures its links (TLS with tls-cluster): handlers put at their heads. */
public interface BusSecurity {
  /** Sets up a link another node opened to this one. */
  void accepted(ChannelPipeline pipeline, ByteBufAllocator allocator);

  /** Sets up a link this node opens to {@code host:port}, before it connects. */
  void connecting(ChannelPipeline pipeline, ByteBufAllocator allocator, String host, int port);
}
