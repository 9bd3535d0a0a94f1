#if Hummingbird && Postgres && Prometheus
import CoreMetrics
import Foundation
import OAuthFlow
import OAuthFlowPostgres
import PostgresNIO

/// The store of signed-in users' tokens: PostgreSQL when `OAUTHFLOW_EXAMPLE_PG_HOST` is set (every
/// instance of the app shares it), else files in `directory`.
///
/// PostgreSQL is reached as `OAUTHFLOW_EXAMPLE_PG_USER` (default `postgres`) with the password in
/// `OAUTHFLOW_EXAMPLE_PG_PASSWORD`, at `OAUTHFLOW_EXAMPLE_PG_PORT` (default 5432), in the database
/// `OAUTHFLOW_EXAMPLE_PG_DATABASE`; TLS is required unless the host is 127.0.0.1 or localhost.
func exampleSessionStore(directory: URL, keyring: SessionKeyring, metrics: any MetricsFactory) throws -> (any SessionDirectory, PostgresTokenStore?) {
    let environment = ProcessInfo.processInfo.environment
    guard let host = environment["OAUTHFLOW_EXAMPLE_PG_HOST"] else {
        return (FileTokenStore(directory: directory, metrics: metrics), nil)
    }
    let local = host == "127.0.0.1" || host == "localhost"
    let configuration = PostgresClient.Configuration(
        host: host, port: environment["OAUTHFLOW_EXAMPLE_PG_PORT"].flatMap(Int.init) ?? 5432,
        username: environment["OAUTHFLOW_EXAMPLE_PG_USER"] ?? "postgres", password: environment["OAUTHFLOW_EXAMPLE_PG_PASSWORD"],
        database: environment["OAUTHFLOW_EXAMPLE_PG_DATABASE"], tls: local ? .disable : .require(.clientDefault))
    let store = try PostgresTokenStore(configuration: configuration, keyring: keyring, metrics: metrics)
    return (store, store)
}
#endif
