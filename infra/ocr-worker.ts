import { CfnOutput } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { uploadsPrefixes } from './permissions.ts';

export interface OcrWorkerAccessProps {
  queue: sqs.IQueue;
  uploads: s3.IBucket;
  /** An account id or IAM ARN allowed to assume the role; default the stack's own account. */
  principal?: string;
}

/**
 * What the external OCR worker may do on AWS, as a managed policy (to attach to a role or user the
 * worker already has) and a role carrying it (to assume): take messages from the OCR queue, read
 * the uploaded files they name and put page images under `ocr-pages/`. Its results go back through
 * the HTTP callbacks, never to the table directly.
 */
export class OcrWorkerAccess extends Construct {
  readonly policy: iam.ManagedPolicy;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: OcrWorkerAccessProps) {
    super(scope, id);
    this.policy = new iam.ManagedPolicy(this, 'Policy', {
      description: 'Maktaba OCR worker: consume the OCR job queue, read the uploaded files, put page images',
      statements: [
        new iam.PolicyStatement({
          actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          resources: [props.queue.queueArn],
        }),
        new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [props.uploads.arnForObjects(`${uploadsPrefixes.files}*`)] }),
        new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [props.uploads.arnForObjects(`${uploadsPrefixes.pageImages}*`)] }),
      ],
    });
    this.role = new iam.Role(this, 'Role', {
      description: 'Assumed by the external OCR worker (see docs/ocr-worker.md: "Connecting an OCR worker")',
      assumedBy: workerPrincipal(props.principal),
      managedPolicies: [this.policy],
    });
    new CfnOutput(scope, 'OcrWorkerRoleArn', { value: this.role.roleArn, description: 'Role the OCR worker assumes' });
    new CfnOutput(scope, 'OcrWorkerPolicyArn', { value: this.policy.managedPolicyArn, description: 'Or attach this policy to the worker’s own role' });
  }
}

function workerPrincipal(principal: string | undefined): iam.IPrincipal {
  if (!principal) return new iam.AccountRootPrincipal();
  return /^\d{12}$/.test(principal) ? new iam.AccountPrincipal(principal) : new iam.ArnPrincipal(principal);
}
