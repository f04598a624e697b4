package io.fabricpulse.app.status;

import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.util.List;
import java.util.Properties;

/**
 * The live status page of a running pipeline: a {@link StatusFeed} thread reading the topics onto a
 * {@link StatusBoard}, served by a {@link StatusPage} on 127.0.0.1. Used by {@code demo} and {@code
 * streams --status-port}.
 */
public final class LiveStatus implements AutoCloseable {

  private final StatusFeed feed;
  private final Thread feedThread;
  private final StatusPage page;

  private LiveStatus(StatusFeed feed, Thread feedThread, StatusPage page) {
    this.feed = feed;
    this.feedThread = feedThread;
    this.page = page;
  }

  /**
   * @param clientConfig Kafka client settings with {@code schema.registry.url}
   * @throws IOException when 127.0.0.1:{@code port} cannot be bound
   */
  public static LiveStatus start(FabricTopics topics, Properties clientConfig, int port)
      throws IOException {
    return start(topics, clientConfig, java.net.InetAddress.getLoopbackAddress(), port, null);
  }

  /**
   * @param token the token every request must carry, or null (see {@link StatusPage})
   * @throws IOException when {@code address}:{@code port} cannot be bound
   */
  public static LiveStatus start(
      FabricTopics topics,
      Properties clientConfig,
      java.net.InetAddress address,
      int port,
      io.fabricpulse.schemas.http.BearerToken token)
      throws IOException {
    return start(topics, clientConfig, address, port, token, List.of());
  }

  /**
   * As above; the page also reports {@code checks} (Kafka, the streams application) after its own
   * feed's.
   */
  public static LiveStatus start(
      FabricTopics topics,
      Properties clientConfig,
      java.net.InetAddress address,
      int port,
      io.fabricpulse.schemas.http.BearerToken token,
      List<HealthCheck> checks)
      throws IOException {
    StatusBoard board = new StatusBoard();
    StatusPage page = StatusPage.start(board, address, port, token);
    StatusFeed feed = new StatusFeed(board, topics, clientConfig);
    checks.forEach(board::addCheck);
    board.addCheck(feed.health());
    Thread thread = new Thread(feed, "status-page-feed");
    thread.setDaemon(true);
    thread.start();
    return new LiveStatus(feed, thread, page);
  }

  public String url() {
    return page.url();
  }

  @Override
  public void close() throws InterruptedException {
    try {
      feed.close();
      feedThread.join(5_000);
    } finally {
      page.close();
    }
  }
}
