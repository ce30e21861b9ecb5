// placeholder, replaced by the real handler (issue 17: GET /ocr/search, GET /ocr/books/{bookTextId}/search).
// It exists so that the CDK stack can bundle and deploy the function; it answers 501 to every route.
import type { APIGatewayProxyResultV2 } from 'aws-lambda';

export const handler = async (): Promise<APIGatewayProxyResultV2> => ({
  statusCode: 501,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ success: false, message: 'Search is not implemented yet' }),
});
