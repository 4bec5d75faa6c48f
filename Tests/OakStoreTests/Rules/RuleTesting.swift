import OakModels
import Testing

/// The error `body` throws, which must be an `OakError`.
func oakError(_ body: () throws -> some Any) -> OakError? {
    do {
        _ = try body()
        Issue.record("expected an OakError, nothing was thrown")
    } catch let error as OakError {
        return error
    } catch {
        Issue.record("expected an OakError, got \(error)")
    }
    return nil
}

/// The fields a validation error names.
func fields(of error: OakError?) -> [String] {
    error?.fieldErrors.map(\.field) ?? []
}
