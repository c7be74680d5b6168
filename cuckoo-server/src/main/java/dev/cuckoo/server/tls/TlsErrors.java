package dev.cuckoo.server.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.lang.System.Logger.Level;
import javax.net.ssl.SSLException;

/**
 * Closes a TLS connection whose handshake or records failed (plaintext on the TLS port, an
 * untrusted certificate, a protocol no side shares, the handshake timeout) with one line at the
 * debug level, as Redis logs "Error accepting a client connection" at its verbose level: a port
 * scanner or a misconfigured client must not fill the log with stack traces.
 */
final class TlsErrors extends ChannelInboundHandlerAdapter {
  private static final System.Logger LOGGER = System.getLogger(TlsErrors.class.getName());

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    SSLException tls = tlsCause(cause);
    if (tls == null) {
      ctx.fireExceptionCaught(cause);
      return;
    }
    LOGGER.log(
        Level.DEBUG,
        "Error accepting a client connection: {0} (addr={1})",
        tls.getMessage(),
        ctx.channel().remoteAddress());
    ctx.close();
  }

  /** Returns the TLS error in {@code cause}'s chain, or null. */
  private static SSLException tlsCause(Throwable cause) {
    for (Throwable e = cause; e != null; e = e.getCause() == e ? null : e.getCause()) {
      if (e instanceof SSLException tls) {
        return tls;
      }
    }
    return null;
  }
}
