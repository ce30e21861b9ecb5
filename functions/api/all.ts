import { apiDocsContracts } from './api-docs.ts';
import { audioContracts, audioSchemas } from './audio-api.ts';
import { billingContracts } from './billing-webhook.ts';
import { healthContracts } from './health.ts';
import { notificationContracts, notificationSchemas } from './notifications-api.ts';
import { ocrApiContracts } from './ocr-api.ts';
import { ocrCallbackContracts } from './ocr-callbacks.ts';
import { ocrExportContracts } from './ocr-export.ts';
import { ocrSchemas } from './ocr-shapes.ts';
import { searchContracts, searchSchemas } from './search-api.ts';
import { sharedSchemas } from './shapes.ts';

/** Every route's contract, by route key (one file per function, named as the function), and the document's named shapes. */
export const allContracts = {
  ...ocrApiContracts,
  ...ocrExportContracts,
  ...searchContracts,
  ...ocrCallbackContracts,
  ...audioContracts,
  ...notificationContracts,
  ...billingContracts,
  ...apiDocsContracts,
  ...healthContracts,
};

export const components = { ...sharedSchemas, ...ocrSchemas, ...searchSchemas, ...audioSchemas, ...notificationSchemas };
