// WebSignInExample is built only with the package traits Hummingbird and Postgres and Prometheus (Package.swift; the test command enables every trait).
#if !(Hummingbird && Postgres && Prometheus)
#error("WebSignInExample needs the package traits \"Hummingbird\" and \"Postgres\" and \"Prometheus\": swift build --enable-all-traits")
#endif
