import Testing

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite only where the tests have a PostgreSQL server (`TestBackend.postgresURL`), as
    /// `scripts/test` and `scripts/with-postgres` give them; elsewhere it is skipped, saying why.
    public static var needsPostgres: Self {
        .enabled(if: TestBackend.postgresURL != nil, "needs a PostgreSQL server: run the tests through scripts/test (or scripts/with-postgres)")
    }
}
