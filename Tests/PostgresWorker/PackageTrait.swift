// PostgresWorker is built only with the package trait Postgres (Package.swift; the test command enables every trait).
#if !(Postgres)
#error("PostgresWorker needs the package trait \"Postgres\": swift build --enable-all-traits")
#endif
