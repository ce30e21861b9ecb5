import java.io.File;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.CommandLineInput;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.monitoring.Telemetry;
import software.amazon.dynamodb.services.local.monitoring.TelemetryUtil;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local listening on 127.0.0.1 only (issue 27): its own main (ServerRunner) binds every
 * interface and has no option to do otherwise. This does what that main does, with the same
 * arguments, but sets the host of the Jetty server's connector before it starts. Run by
 * infra/local/embedded/dynamodb.ts in Java's source-file mode (JDK 11+), so nothing is compiled ahead.
 */
public class DynamoDbLoopback {
  public static void main(String[] args) throws Exception {
    CommandLineInput input = new CommandLineInput(args);
    if (!input.init()) return;
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind to loopback");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost("127.0.0.1");
    Telemetry.configureTelemetry(
        TelemetryUtil.getSetupType(new File("/.dockerenv"), new File("pom.xml")),
        ServerRunner.getSetupMode(input),
        TelemetryUtil.isTelemetryEnabled(input.isDisableTelemetry()));
    proxy.start();
  }
}
