import { apiDocsContracts } from '../../api-docs/contract.ts';
import { audioContracts, audioSchemas } from '../../audio-api/contract.ts';
import { billingContracts } from '../../billing-webhook/contract.ts';
import { healthContracts } from '../../health/contract.ts';
import { notificationContracts, notificationSchemas } from '../../notifications-api/contract.ts';
import { ocrApiContracts } from '../../ocr-api/contract.ts';
import { ocrCallbackContracts } from '../../ocr-callbacks/contract.ts';
import { ocrExportContracts } from '../../ocr-export/contract.ts';
import { ocrSchemas } from './ocr-shapes.ts';
import { searchContracts, searchSchemas } from '../../search-api/contract.ts';
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
