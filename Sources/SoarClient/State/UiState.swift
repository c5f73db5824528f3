/// What a screen shows, as one value instead of `isLoading` / `error` / `items` flags.
///
/// `.idle` is the skeleton before the first load; an empty result is `.data([])`, so an empty-state
/// view can tell "nothing there" from "not loaded yet".
public enum UiState<Value: Sendable>: Sendable {
    case idle
    case loading
    case data(Value)
    /// The ``AppError/message`` to show.
    case error(String)

    public init(_ result: AppResult<Value>) {
        switch result {
        case .success(let value): self = .data(value)
        case .failure(let error): self = .error(error.message)
        }
    }

    public var value: Value? { if case .data(let v) = self { v } else { nil } }
    public var isLoading: Bool { if case .loading = self { true } else { false } }
    public var errorMessage: String? { if case .error(let m) = self { m } else { nil } }
}

extension UiState: Equatable where Value: Equatable {}
