// Error bodies of the API: RFC 9457 problem+json from /api, RFC 6749 §5.2 bodies from
// the token endpoint. Both become an ApiError.

export interface FieldError {
  field: string;
  message: string;
}

/** ApiError is a failed call: the problem's title, detail and field errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly code: string,
    readonly fields: FieldError[] = [],
    readonly requestId = '',
  ) {
    super(detail || title);
  }
}

/** errorFrom turns a failed response into an ApiError, whatever its body. */
export async function errorFrom(resp: Response): Promise<ApiError> {
  const requestId = resp.headers.get('X-Request-ID') ?? '';
  let body: Record<string, unknown> = {};
  try {
    body = (await resp.json()) as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's error page): fall back to the status line.
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  if (typeof body.error === 'string') {
    // RFC 6749 §5.2, from the token endpoint.
    return new ApiError(resp.status, body.error, str(body.error_description), body.error, [], requestId);
  }
  const fields = Array.isArray(body.errors) ? (body.errors as FieldError[]) : [];
  return new ApiError(
    resp.status,
    str(body.title) || resp.statusText || `HTTP ${resp.status}`,
    str(body.detail),
    str(body.code),
    fields,
    str(body.request_id) || requestId,
  );
}

