package dev.cuckoo.server.protocol;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.Objects;

/**
 * Whether one connection has authenticated. AUTH and HELLO set it through the connection's session;
 * the connection's {@link RespDecoder} reads it to hold clients that have not authenticated to
 * Redis's small pre-AUTH request limits. Both run on the connection's network thread, so no
 * synchronisation is needed.
 */
public final class Authentication {
  /** The channel attribute under which the pipeline initializer stores a connection's state. */
  public static final AttributeKey<Authentication> KEY =
      AttributeKey.valueOf(Authentication.class, "authentication");

  private boolean authenticated;

  /**
   * Creates the state of a new connection.
   *
   * @param authenticated true if no password is required, so commands may run without AUTH
   */
  public Authentication(boolean authenticated) {
    this.authenticated = authenticated;
  }

  /** Returns the state stored on a channel by the pipeline initializer. */
  public static Authentication of(Channel channel) {
    return Objects.requireNonNull(channel.attr(KEY).get(), "no Authentication on the channel");
  }

  /** Returns true once the client has authenticated (or if no password is set). */
  public boolean authenticated() {
    return authenticated;
  }

  /** Marks the client authenticated. */
  public void authenticate() {
    authenticated = true;
  }

  /** Sets the state back to that of a new connection (RESET). */
  public void reset(boolean authenticated) {
    this.authenticated = authenticated;
  }
}
